import * as fs from 'node:fs/promises';
import type { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { dropTemplate, TEST_PG_TEMPLATE } from './test-database';

export default async function globalTeardown(): Promise<void> {
  // On a shared server (TEST_DATABASE_URL) the run's template would otherwise stay behind.
  const template = process.env[TEST_PG_TEMPLATE];
  if (template) await dropTemplate(template);
  const started = (globalThis as Record<string, unknown>).__TEST_PG__ as { server: EmbeddedDatabase; dir: string } | undefined;
  if (!started) return;
  await started.server.stop();
  await fs.rm(started.dir, { recursive: true, force: true });
}
