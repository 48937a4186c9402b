import type { DataSource } from 'typeorm';
import { ADVISORY_LOCKS } from './advisory-locks';
import { isDatabaseUnavailable } from './database-errors';

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so two
 * instances starting together never run the same migration twice: the second
 * waits for the first, then finds nothing left to do.
 * Returns the names of the migrations this call applied.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.MIGRATION]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' }).catch((error: unknown) => {
        throw new Error(`applying the migrations failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      return applied.map((migration) => migration.name);
    } finally {
      // A lost session fails the unlock too, and has already released its lock: the error to report is the migrations' own.
      await runner.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.MIGRATION]).catch((error: unknown) => {
        if (!isDatabaseUnavailable(error)) throw error;
      });
    }
  } finally {
    await runner.release();
  }
}
