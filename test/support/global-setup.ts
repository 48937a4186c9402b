import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { createMigratedTemplate, TEST_PG_SERVER_URL, TEST_PG_TEMPLATE } from './test-database';

/**
 * Finds the PostgreSQL server the tests use: TEST_DATABASE_URL, else DATABASE_URL,
 * else an embedded server started for this run and removed after it. There it
 * migrates one template database; each test file then clones its own database from
 * it (see test-database.ts).
 */
export default async function globalSetup(): Promise<void> {
  await startServer();
  const started = Date.now();
  process.env[TEST_PG_TEMPLATE] = await createMigratedTemplate();
  process.stdout.write(`\n[tests] template database migrated in ${Date.now() - started} ms\n`);
}

async function startServer(): Promise<void> {
  const configured = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (configured) {
    process.env[TEST_PG_SERVER_URL] = configured;
    return;
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'briefing-test-pg-'));
  await fs.chmod(dir, 0o755);
  const started = Date.now();
  const server = await startEmbeddedPostgres({
    clusterDir: path.join(dir, 'cluster'),
    databaseName: 'postgres',
    persistent: false,
  });
  process.env[TEST_PG_SERVER_URL] = server.adminUrl;
  process.stdout.write(`\n[tests] embedded PostgreSQL started in ${Date.now() - started} ms (${dir})`);
  (globalThis as Record<string, unknown>).__TEST_PG__ = { server, dir };
}
