import * as fs from 'node:fs/promises';
import type { EmbeddedDatabase } from '../../src/database/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const started = (globalThis as Record<string, unknown>).__TEST_PG__ as { server: EmbeddedDatabase; dir: string } | undefined;
  if (!started) return;
  await started.server.stop();
  await fs.rm(started.dir, { recursive: true, force: true });
}
