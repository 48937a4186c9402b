import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildMigrationDataSourceOptions } from '../../src/database/data-source-options';
import { runMigrationsLocked } from '../../src/database/migrate';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Environment variables global-setup hands to every test worker. */
export const TEST_PG_SERVER_URL = 'TEST_PG_SERVER_URL';
export const TEST_PG_TEMPLATE = 'TEST_PG_TEMPLATE';

function serverUrl(): string {
  const url = process.env[TEST_PG_SERVER_URL];
  if (!url) throw new Error(`${TEST_PG_SERVER_URL} is not set: run the tests through jest (global-setup starts the server)`);
  return url;
}

async function withAdmin<T>(server: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: server });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A new database `<prefix>_<random>` on the server at `adminUrl`: empty, or a copy of
 * `template`. Tests call createTestDatabase; bench/ calls this with its own server.
 */
export async function createDatabase(adminUrl: string, prefix: string, template?: string): Promise<TestDatabase & { name: string }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) =>
    client.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`),
  );
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Creates this run's template database and migrates it the way the app does at start
 * (runMigrationsLocked). Connections are then refused, because PostgreSQL clones a
 * template only while nobody is connected to it.
 */
export async function createMigratedTemplate(): Promise<TestDatabase & { name: string }> {
  // One per run (the pid in its name): runs sharing a server (TEST_DATABASE_URL) must not share a template.
  const template = await createDatabase(serverUrl(), `briefing_template_${process.pid}`);
  const dataSource = await new DataSource(buildMigrationDataSourceOptions(template.url)).initialize();
  try {
    await runMigrationsLocked(dataSource);
  } finally {
    await dataSource.destroy();
  }
  await withAdmin(serverUrl(), (client) => client.query(`ALTER DATABASE ${template.name} WITH ALLOW_CONNECTIONS false`));
  return template;
}

/**
 * A new database on the test server, cloned from the run's migrated template (the
 * app's start-up then finds no migration to apply); `{ empty: true }` for a
 * database without any table, for tests of the migrations themselves.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const template = process.env[TEST_PG_TEMPLATE];
  if (!options.empty && !template) throw new Error(`${TEST_PG_TEMPLATE} is not set: run the tests through jest (global-setup creates it)`);
  return createDatabase(serverUrl(), 'briefing_test', options.empty ? undefined : template);
}
