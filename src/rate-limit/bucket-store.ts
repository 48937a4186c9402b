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
