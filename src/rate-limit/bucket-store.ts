/** A token bucket: holds at most `capacity` tokens and gains `refillPerSecond` tokens a second. */
export interface BucketRule {
  /** Distinguishes buckets of different rules that share a key. */
  name: string;
  capacity: number;
  refillPerSecond: number;
}

export type BucketDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * Where buckets live: in PostgreSQL, shared by every instance (PostgresBucketStore,
 * the default), or in this process for a single instance (InMemoryBucketStore);
 * RATE_LIMIT_STORE chooses.
 */
export abstract class BucketStore {
  /** Takes one token from the bucket of `key` under `rule`, if one is there. */
  abstract take(key: string, rule: BucketRule): Promise<BucketDecision>;
}

/**
 * The Clock the buckets are timed by: the system's, even when tests move the app's Clock (a
 * frozen clock would stop every bucket of the other tests from refilling). The in-process store
 * reads its monotonic time; the PostgreSQL store keeps the database's clock with the system's
 * and reads `now()` of any other (a test's FakeClock). Tests of the limits themselves pass a FakeClock.
 */
export const RATE_LIMIT_TIME = Symbol('RATE_LIMIT_TIME');
