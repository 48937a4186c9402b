/** A token bucket: holds at most `capacity` tokens and gains `refillPerSecond` tokens a second. */
export interface BucketRule {
  /** Distinguishes buckets of different rules that share a key. */
  name: string;
  capacity: number;
  refillPerSecond: number;
}

export type BucketDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * Where buckets live. In process today (the specification assumes one instance);
 * a shared store (Redis) implements the same contract when the service scales out.
 */
export abstract class BucketStore {
  /** Takes one token from the bucket of `key` under `rule`, if one is there. */
  abstract take(key: string, rule: BucketRule): Promise<BucketDecision>;
}
