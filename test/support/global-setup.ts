import { type PostgresServer, startPostgresServer } from './postgres-server';
import { createMigratedTemplate, TEST_PG_SERVER_URL, TEST_PG_TEMPLATE, type TestDatabase } from './test-database';

/** What global-teardown undoes: set in this process, which Jest runs both in. */
export const TEST_RUN_STATE = '__TEST_PG__';

/**
 * Finds the PostgreSQL server the tests use (postgres-server.ts: TEST_DATABASE_URL,
 * DATABASE_URL or an embedded one for this run) and migrates one template database
 * there; each test file then clones its own database from it (test-database.ts).
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stdout.write(`\n[tests] ${line}`);
  const server = await startPostgresServer('test', log);
  process.env[TEST_PG_SERVER_URL] = server.adminUrl;
  const state: { server: PostgresServer; template?: TestDatabase } = { server };
  (globalThis as Record<string, unknown>)[TEST_RUN_STATE] = state;
  const started = Date.now();
  const template = await createMigratedTemplate();
  state.template = template;
  process.env[TEST_PG_TEMPLATE] = template.name;
  log(`template database ${template.name} migrated in ${Date.now() - started} ms\n`);
}
