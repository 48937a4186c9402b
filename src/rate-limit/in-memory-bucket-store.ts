import { Injectable } from '@nestjs/common';
import { TokenBucket } from 'limiter';
import { LRUCache } from 'lru-cache';
import { type BucketDecision, type BucketRule, BucketStore } from './bucket-store';

/** Upper bound on tracked clients, so a flood of distinct keys cannot exhaust memory. */
const MAX_BUCKETS = 200_000;

/**
 * Token buckets from the `limiter` package, one per (rule, key), kept in an LRU.
 * A bucket left alone long enough to refill completely is indistinguishable from a
 * new one, so it expires after exactly that idle time.
 */
@Injectable()
export class InMemoryBucketStore extends BucketStore {
  private readonly buckets = new LRUCache<string, TokenBucket>({ max: MAX_BUCKETS, updateAgeOnGet: true });

  take(key: string, rule: BucketRule): Promise<BucketDecision> {
    const id = `${rule.name}:${key}`;
    let bucket = this.buckets.get(id);
    if (bucket === undefined) {
      bucket = new TokenBucket({ bucketSize: rule.capacity, tokensPerInterval: rule.refillPerSecond, interval: 'second' });
      // A limiter TokenBucket starts empty; a new client starts with its full burst.
      bucket.content = rule.capacity;
      this.buckets.set(id, bucket, { ttl: Math.ceil((rule.capacity / rule.refillPerSecond) * 1000) });
    }
    if (bucket.tryRemoveTokens(1)) return Promise.resolve({ allowed: true });
    return Promise.resolve({ allowed: false, retryAfterMs: bucket.getWaitTime(1) });
  }
}
