import type { BucketDecision, BucketRule } from './bucket-store';
import { InMemoryBucketStore } from './in-memory-bucket-store';

const slow: BucketRule = { name: 'slow', capacity: 3, refillPerSecond: 1 };

async function takeMany(store: InMemoryBucketStore, key: string, rule: BucketRule, n: number): Promise<BucketDecision[]> {
  const decisions: BucketDecision[] = [];
  for (let i = 0; i < n; i++) decisions.push(await store.take(key, rule));
  return decisions;
}

function retryAfterOf(decision: BucketDecision): number {
  if (decision.allowed) throw new Error('expected a refusal');
  return decision.retryAfterMs;
}

describe('InMemoryBucketStore', () => {
  it('gives a new key its full burst, then refuses with a retry time of about one refill interval', async () => {
    const store = new InMemoryBucketStore();

    const burst = await takeMany(store, 'client-a', slow, 3);
    expect(burst).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);

    const refused = await store.take('client-a', slow);
    expect(refused.allowed).toBe(false);
    const retryAfterMs = retryAfterOf(refused);
    // One token at 1 token/s takes 1000 ms; a few ms may already have dripped in.
    expect(retryAfterMs).toBeGreaterThan(900);
    expect(retryAfterMs).toBeLessThanOrEqual(1000);
  });

  it('scales the retry time with the refill rate', async () => {
    const store = new InMemoryBucketStore();
    const rule: BucketRule = { name: 'fast', capacity: 1, refillPerSecond: 10 };

    expect(await store.take('k', rule)).toEqual({ allowed: true });
    const retryAfterMs = retryAfterOf(await store.take('k', rule));
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(100);
  });

  it('handles a fractional refill rate (one token every 2 s)', async () => {
    const store = new InMemoryBucketStore();
    const rule: BucketRule = { name: 'auth-like', capacity: 1, refillPerSecond: 0.5 };

    expect(await store.take('k', rule)).toEqual({ allowed: true });
    const retryAfterMs = retryAfterOf(await store.take('k', rule));
    expect(retryAfterMs).toBeGreaterThan(1900);
    expect(retryAfterMs).toBeLessThanOrEqual(2000);
  });

  it('keeps separate buckets for different keys', async () => {
    const store = new InMemoryBucketStore();
    await takeMany(store, 'client-a', slow, 3);
    expect((await store.take('client-a', slow)).allowed).toBe(false);

    expect(await takeMany(store, 'client-b', slow, 3)).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);
    expect((await store.take('client-b', slow)).allowed).toBe(false);
  });

  it('keeps separate buckets for different rules sharing a key', async () => {
    const store = new InMemoryBucketStore();
    const other: BucketRule = { name: 'other', capacity: 1, refillPerSecond: 1 };
    await takeMany(store, 'shared', slow, 3);
    expect((await store.take('shared', slow)).allowed).toBe(false);

    expect(await store.take('shared', other)).toEqual({ allowed: true });
    expect((await store.take('shared', other)).allowed).toBe(false);
  });

  it('keeps buckets per store instance', async () => {
    const a = new InMemoryBucketStore();
    const b = new InMemoryBucketStore();
    await takeMany(a, 'k', slow, 3);
    expect((await a.take('k', slow)).allowed).toBe(false);
    expect(await b.take('k', slow)).toEqual({ allowed: true });
  });

  it('refills over time', async () => {
    const store = new InMemoryBucketStore();
    const rule: BucketRule = { name: 'refill', capacity: 2, refillPerSecond: 20 };
    await takeMany(store, 'k', rule, 2);
    expect((await store.take('k', rule)).allowed).toBe(false);

    // 20 tokens/s: one token every 50 ms.
    await new Promise((resolve) => setTimeout(resolve, 80));

    expect(await store.take('k', rule)).toEqual({ allowed: true });
  });
});
