import { type DataSource, MigrationExecutor } from 'typeorm';
import { ADVISORY_LOCKS } from './advisory-locks';
import { isDatabaseUnavailable } from './database-errors';

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so two
 * instances starting together never run the same migration twice: the second
 * waits for the first, then finds nothing left to do.
 * Returns the names of the migrations this call applied.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  return withMigrationLock(dataSource, async () => {
    const applied = await dataSource.runMigrations({ transaction: 'each' }).catch((error: unknown) => {
      throw new Error(`applying the migrations failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    return applied.map((migration) => migration.name);
  });
}

/**
 * The migrations of this version the database has not applied, read once any migration
 * in progress (another instance's, or the pre-deploy command's) has finished. Writes nothing:
 * on a database without the migrations table every migration is pending.
 */
export async function pendingMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  return withMigrationLock(dataSource, async () => {
    const pending = await new MigrationExecutor(dataSource).getPendingMigrations();
    return pending.map((migration) => migration.name);
  });
}

/** A start with MIGRATIONS_AT_START=false on a database that lacks some of this version's migrations. */
export class PendingMigrationsError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `the database lacks ${pending.length} migration(s) of this version (${pending.join(', ')}) and MIGRATIONS_AT_START=false: ` +
        'apply them first with `node dist/src/migrate-main.js` (npm run migrate) against the same DATABASE_URL',
    );
    this.name = 'PendingMigrationsError';
  }
}

async function withMigrationLock<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.MIGRATION]);
    try {
      return await work();
    } finally {
      // A lost session fails the unlock too, and has already released its lock: the error to report is the work's own.
      await runner.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.MIGRATION]).catch((error: unknown) => {
        if (!isDatabaseUnavailable(error)) throw error;
      });
    }
  } finally {
    await runner.release();
  }
}
