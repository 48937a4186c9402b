import { FakeClock } from '../../test/support/fake-clock';
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

/** Time moves only when a test says so: every refill and retry time below is exact. */
describe('InMemoryBucketStore', () => {
  let clock: FakeClock;
  let store: InMemoryBucketStore;

  beforeEach(() => {
    clock = new FakeClock();
    store = new InMemoryBucketStore(clock);
  });

  it('gives a new key its full burst, then refuses with a retry time of one refill interval', async () => {
    const burst = await takeMany(store, 'client-a', slow, 3);
    expect(burst).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);

    // One token at 1 token/s takes 1000 ms.
    expect(await store.take('client-a', slow)).toEqual({ allowed: false, retryAfterMs: 1000 });
  });

  it('answers the time left to the next whole token', async () => {
    await takeMany(store, 'client-a', slow, 3);
    clock.advance(300);
    expect(await store.take('client-a', slow)).toEqual({ allowed: false, retryAfterMs: 700 });
    clock.advance(699);
    expect(await store.take('client-a', slow)).toEqual({ allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(await store.take('client-a', slow)).toEqual({ allowed: true });
  });

  it('scales the retry time with the refill rate', async () => {
    const rule: BucketRule = { name: 'fast', capacity: 1, refillPerSecond: 10 };

    expect(await store.take('k', rule)).toEqual({ allowed: true });
    expect(retryAfterOf(await store.take('k', rule))).toBe(100);
  });

  it('handles a fractional refill rate (one token every 2 s)', async () => {
    const rule: BucketRule = { name: 'auth-like', capacity: 1, refillPerSecond: 0.5 };

    expect(await store.take('k', rule)).toEqual({ allowed: true });
    expect(retryAfterOf(await store.take('k', rule))).toBe(2000);
    clock.advance(1999);
    expect((await store.take('k', rule)).allowed).toBe(false);
    clock.advance(1);
    expect(await store.take('k', rule)).toEqual({ allowed: true });
  });

  it('keeps separate buckets for different keys', async () => {
    await takeMany(store, 'client-a', slow, 3);
    expect((await store.take('client-a', slow)).allowed).toBe(false);

    expect(await takeMany(store, 'client-b', slow, 3)).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);
    expect((await store.take('client-b', slow)).allowed).toBe(false);
  });

  it('keeps separate buckets for different rules sharing a key', async () => {
    const other: BucketRule = { name: 'other', capacity: 1, refillPerSecond: 1 };
    await takeMany(store, 'shared', slow, 3);
    expect((await store.take('shared', slow)).allowed).toBe(false);

    expect(await store.take('shared', other)).toEqual({ allowed: true });
    expect((await store.take('shared', other)).allowed).toBe(false);
  });

  it('keeps buckets per store instance', async () => {
    const other = new InMemoryBucketStore(clock);
    await takeMany(store, 'k', slow, 3);
    expect((await store.take('k', slow)).allowed).toBe(false);
    expect(await other.take('k', slow)).toEqual({ allowed: true });
  });

  it('refills over time, never above capacity', async () => {
    const rule: BucketRule = { name: 'refill', capacity: 2, refillPerSecond: 20 };
    await takeMany(store, 'k', rule, 2);
    expect((await store.take('k', rule)).allowed).toBe(false);

    // 20 tokens/s: one token every 50 ms.
    clock.advance(49);
    expect((await store.take('k', rule)).allowed).toBe(false);
    clock.advance(1);
    expect(await store.take('k', rule)).toEqual({ allowed: true });

    // Long enough for many tokens: the bucket holds 2 at most.
    clock.advance(10_000);
    expect(await takeMany(store, 'k', rule, 3)).toEqual([
      { allowed: true },
      { allowed: true },
      expect.objectContaining({ allowed: false }),
    ]);
  });
});
