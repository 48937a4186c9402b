import type { DataSource } from 'typeorm';

/** Key of the session-level advisory lock that serialises migrations across instances. */
export const MIGRATION_LOCK_KEY = 727_100_001;

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
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' }).catch((error: unknown) => {
        throw new Error(`applying the migrations failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      return applied.map((migration) => migration.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}
