import { TEST_RUN_STATE } from './global-setup';
import type { PostgresServer } from './postgres-server';
import type { TestDatabase } from './test-database';

export default async function globalTeardown(): Promise<void> {
  const run = (globalThis as Record<string, unknown>)[TEST_RUN_STATE] as { server: PostgresServer; template?: TestDatabase } | undefined;
  if (!run) return;
  // On a shared server (TEST_DATABASE_URL) the run's template would otherwise stay behind.
  await run.template?.drop();
  await run.server.stop();
}
