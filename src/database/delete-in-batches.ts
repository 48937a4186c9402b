import type { DataSource } from 'typeorm';

/** Rows a retention delete removes per statement: short locks, short transactions, bounded WAL bursts. */
export const RETENTION_BATCH = 5_000;

/**
 * Deletes the rows of `table` whose `column` is before `cutoff`, `RETENTION_BATCH` at a
 * time (each statement its own transaction, read through the column's index); returns
 * how many went. For the owners' retention methods: `table` and `column` are constants.
 */
export async function deleteOlderThan(dataSource: DataSource, table: string, column: string, cutoff: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [{ n }] = await dataSource.query<{ n: number }[]>(
      `WITH gone AS (
         DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${column} < $1 LIMIT ${RETENTION_BATCH})
         RETURNING 1
       ) SELECT count(*)::int AS n FROM gone`,
      [cutoff],
    );
    deleted += n;
    if (n < RETENTION_BATCH) return deleted;
  }
}
