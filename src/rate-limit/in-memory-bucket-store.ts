import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Clock, SystemClock } from '../common/clock';
import { type BucketDecision, type BucketRule, BucketStore } from './bucket-store';

/** Upper bound on tracked clients, so a flood of distinct keys cannot exhaust memory. */
const MAX_BUCKETS = 200_000;

/**
 * A bucket as the moment it is full again (the clock's monotonic milliseconds): it holds
 * `capacity - (fullAt - now) / interval` tokens, one number that a take moves by one interval.
 * Times rather than fractional token counts, so no rounding builds up over many takes.
 */
interface Bucket {
  fullAt: number;
}

/** Float noise below this is no time at all (1000 / 3 added three times is not exactly 1000). */
const EPSILON_MS = 1e-6;

/**
 * Token buckets in this process, one per (rule, key), kept in an LRU. The time is the
 * monotonic time of `time` (RATE_LIMIT_TIME: the system's; a test's FakeClock moves it).
 * A bucket left alone long enough to refill completely is indistinguishable from a
 * new one, so it expires after that idle time, on the same clock.
 */
@Injectable()
export class InMemoryBucketStore extends BucketStore {
  private readonly buckets: LRUCache<string, Bucket>;

  constructor(private readonly time: Clock = new SystemClock()) {
    super();
    this.buckets = new LRUCache<string, Bucket>({ max: MAX_BUCKETS, updateAgeOnGet: true, perf: { now: () => time.monotonicMs() } });
  }

  take(key: string, rule: BucketRule): Promise<BucketDecision> {
    const id = `${rule.name}:${key}`;
    const now = this.time.monotonicMs();
    const interval = 1000 / rule.refillPerSecond;
    let bucket = this.buckets.get(id);
    if (bucket === undefined) {
      // A new client starts with its full burst.
      bucket = { fullAt: now };
      this.buckets.set(id, bucket, { ttl: Math.ceil(rule.capacity * interval) });
    }
    // How long until the bucket holds one whole token; at most 0 when it holds one now.
    const wait = bucket.fullAt - now - (rule.capacity - 1) * interval;
    if (wait > EPSILON_MS) return Promise.resolve({ allowed: false, retryAfterMs: Math.ceil(wait - EPSILON_MS) });
    bucket.fullAt = Math.max(bucket.fullAt, now) + interval;
    return Promise.resolve({ allowed: true });
  }
}
