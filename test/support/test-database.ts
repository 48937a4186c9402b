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

function databaseUrl(name: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function dropDatabase(name: string): Promise<void> {
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * Creates this run's template database and migrates it the way the app does at start
 * (runMigrationsLocked). Connections are then refused, because PostgreSQL clones a
 * template only while nobody is connected to it. Returns the template's name.
 */
export async function createMigratedTemplate(): Promise<string> {
  // One per run: runs sharing a server (TEST_DATABASE_URL) must not share a template.
  const name = `briefing_template_${process.pid}_${randomBytes(3).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const dataSource = await new DataSource(buildMigrationDataSourceOptions(databaseUrl(name))).initialize();
  try {
    await runMigrationsLocked(dataSource);
  } finally {
    await dataSource.destroy();
  }
  await withAdmin((client) => client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`));
  return name;
}

export const dropTemplate = dropDatabase;

/**
 * A new database on the test server, cloned from the run's migrated template (the
 * app's start-up then finds no migration to apply); `{ empty: true }` for a
 * database without any table, for tests of the migrations themselves.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const name = `briefing_test_${randomBytes(6).toString('hex')}`;
  const template = process.env[TEST_PG_TEMPLATE];
  if (!options.empty && !template) throw new Error(`${TEST_PG_TEMPLATE} is not set: run the tests through jest (global-setup creates it)`);
  await withAdmin((client) => client.query(options.empty ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`));
  return { url: databaseUrl(name), drop: () => dropDatabase(name) };
}
