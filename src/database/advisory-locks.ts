/**
 * Every PostgreSQL advisory lock the service takes, in one list so no two features ever
 * pick the same key. Keys never change: instances of two versions run side by side
 * during a rolling deploy and must still exclude each other.
 *
 * | lock | form | held |
 * |---|---|---|
 * | migrations | `pg_advisory_lock(MIGRATION)` | by the instance applying migrations at start, or `migrate-main.js`; briefly by a start that only checks them (MIGRATIONS_AT_START=false) |
 * | singleton jobs | `pg_try_advisory_lock(SINGLETON_JOBS, lockKey)`, one per job of src/jobs/job-catalog.ts | by the leader's session |
 * | push digests | `pg_try_advisory_xact_lock(PUSH_DIGEST_RELEASE)` | while one instance turns held deliveries into digests |
 * | disclosure-system budget | `pg_advisory_xact_lock(1145131604, 1)` | inside `dart_budget_take` (migration 1764420000000; SQL, so written there) |
 */
export const ADVISORY_LOCKS = {
  MIGRATION: 727_100_001,
  /** The first key of the two-key form; the second is the job's `lockKey`. */
  SINGLETON_JOBS: 727_100_002,
  PUSH_DIGEST_RELEASE: 727_100_003,
  /** 'DART' as a 32-bit integer; the second key is 1. */
  DART_BUDGET: 1_145_131_604,
} as const;
