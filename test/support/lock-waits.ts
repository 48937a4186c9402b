import { eventually } from './eventually';
import type { Queryable } from './fixtures';

/** Statements of the current database waiting on a lock now (a row lock, another transaction's insert of the same key). */
export async function lockWaiters(db: Queryable): Promise<number> {
  const [row] = await db.query<{ waiting: number }[]>(
    `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return row.waiting;
}

/**
 * Resolves once at least `count` statements of the current database wait on a lock: the
 * event that proves a concurrent transaction reached the point where it has to take turns.
 */
export async function untilLockWaiters(db: Queryable, count = 1, timeoutMs = 10_000): Promise<void> {
  await eventually(async () => (await lockWaiters(db)) >= count, timeoutMs);
}
