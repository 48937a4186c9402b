import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SystemClock } from '../../src/common/clock';
import { AppError } from '../../src/common/errors/app-error';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import type { BucketDecision, BucketRule } from '../../src/rate-limit/bucket-store';
import { PostgresBucketStore } from '../../src/rate-limit/postgres-bucket-store';
import { FakeClock } from '../support/fake-clock';
import { useOwnerDatabase } from '../support/owner-database';
import { createTestDatabase } from '../support/test-database';

/** A rule that never refills while the clock stands still, and practically never otherwise. */
const noRefill = (name: string, capacity: number): BucketRule => ({ name, capacity, refillPerSecond: 0.0001 });

function retryAfterOf(decision: BucketDecision): number {
  if (decision.allowed) throw new Error('expected a refusal');
  return decision.retryAfterMs;
}

/**
 * The one statement of a take, against the real database: two stores on two pools
 * stand for two instances sharing the buckets. Their time is one FakeClock (what
 * RATE_LIMIT_TIME gives them in tests), so every refill and retry time is exact.
 */
describe('PostgresBucketStore', () => {
  const db = useOwnerDatabase({ poolSize: 20 });
  const clock = new FakeClock();
  let store: PostgresBucketStore;
  let other: PostgresBucketStore;
  let nextKey = 1;
  const freshKey = () => `user:${nextKey++}`;

  beforeAll(async () => {
    store = new PostgresBucketStore(db.dataSource, clock);
    other = new PostgresBucketStore(await db.openPool(20), clock);
  });

  const takeMany = async (key: string, rule: BucketRule, n: number) => {
    const decisions: BucketDecision[] = [];
    for (let i = 0; i < n; i++) decisions.push(await store.take(key, rule));
    return decisions;
  };
  const bucketCount = async () => (await db.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM rate_limit_buckets'))[0].n;

  it('gives a new key its full burst, then refuses with the time to the next whole token', async () => {
    const rule: BucketRule = { name: 'slow', capacity: 3, refillPerSecond: 1 };
    const key = freshKey();
    expect(await takeMany(key, rule, 3)).toEqual(Array(3).fill({ allowed: true }));

    // One token at 1 token/s takes 1000 ms.
    expect(await store.take(key, rule)).toEqual({ allowed: false, retryAfterMs: 1000 });
    clock.advance(400);
    expect(await store.take(key, rule)).toEqual({ allowed: false, retryAfterMs: 600 });
  });

  it('scales the retry time with the refill rate, fractional rates included', async () => {
    const fast: BucketRule = { name: 'fast', capacity: 1, refillPerSecond: 2 };
    const authLike: BucketRule = { name: 'auth-like', capacity: 1, refillPerSecond: 0.5 };
    const key = freshKey();
    await store.take(key, fast);
    expect(retryAfterOf(await store.take(key, fast))).toBe(500);
    await store.take(key, authLike);
    expect(retryAfterOf(await store.take(key, authLike))).toBe(2000);
  });

  it('refills over time, never above capacity', async () => {
    // 4 tokens/s: one token every 250 ms.
    const rule: BucketRule = { name: 'refill', capacity: 2, refillPerSecond: 4 };
    const key = freshKey();
    await takeMany(key, rule, 2);
    expect((await store.take(key, rule)).allowed).toBe(false);

    clock.advance(249);
    expect((await store.take(key, rule)).allowed).toBe(false);
    clock.advance(1);
    expect(await store.take(key, rule)).toEqual({ allowed: true });

    // Long enough for many tokens: the bucket holds 2 at most.
    clock.advance(10_000);
    expect(await takeMany(key, rule, 3)).toEqual([{ allowed: true }, { allowed: true }, expect.objectContaining({ allowed: false })]);
  });

  it("takes its time from the database, one clock for every instance, unless given a clock other than the system's", async () => {
    const rule = noRefill('whose-time', 5);
    const [given, byDefault, bySystem] = [freshKey(), freshKey(), freshKey()];
    const y2k = new Date('2000-01-01T00:00:00Z');
    await new PostgresBucketStore(db.dataSource, new FakeClock(y2k)).take(given, rule);
    const [{ before }] = await db.dataSource.query<{ before: Date }[]>('SELECT clock_timestamp() AS before');
    await new PostgresBucketStore(db.dataSource).take(byDefault, rule);
    await new PostgresBucketStore(db.dataSource, new SystemClock()).take(bySystem, rule);

    const rows = await db.dataSource.query<{ key: string; refilled_at: Date }[]>(
      'SELECT key, refilled_at FROM rate_limit_buckets WHERE rule = $1',
      [rule.name],
    );
    const refilledAt = new Map(rows.map((row) => [row.key, row.refilled_at.getTime()]));
    expect(refilledAt.get(given)).toBe(y2k.getTime());
    expect(refilledAt.get(byDefault)).toBeGreaterThanOrEqual(before.getTime());
    expect(refilledAt.get(bySystem)).toBeGreaterThanOrEqual(refilledAt.get(byDefault)!);
  });

  it('keeps separate buckets for different keys and for different rules sharing a key', async () => {
    const rule = noRefill('separate', 2);
    const otherRule = noRefill('separate-other', 1);
    const [a, b] = [freshKey(), freshKey()];
    await takeMany(a, rule, 2);
    expect((await store.take(a, rule)).allowed).toBe(false);

    expect(await takeMany(b, rule, 2)).toEqual([{ allowed: true }, { allowed: true }]);
    expect(await store.take(a, otherRule)).toEqual({ allowed: true });
    expect((await store.take(a, otherRule)).allowed).toBe(false);
  });

  it('shares a bucket between instances', async () => {
    const rule = noRefill('shared', 2);
    const key = freshKey();
    expect(await store.take(key, rule)).toEqual({ allowed: true });
    expect(await other.take(key, rule)).toEqual({ allowed: true });
    expect((await store.take(key, rule)).allowed).toBe(false);
    expect((await other.take(key, rule)).allowed).toBe(false);
  });

  it('lets exactly capacity of many parallel takes of one key through, from two instances', async () => {
    const rule = noRefill('parallel', 10);
    for (let round = 0; round < 3; round++) {
      const key = freshKey();
      const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? store : other).take(key, rule)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    }
  });

  it('sweeps buckets that have been full for longer than the margin, in batches, and keeps the others', async () => {
    await db.dataSource.query('DELETE FROM rate_limit_buckets');
    // 1000 tokens/s: full again 1 ms after the take.
    const quick: BucketRule = { name: 'quick', capacity: 1, refillPerSecond: 1000 };
    const keys = Array.from({ length: 5 }, freshKey);
    for (const key of keys) await store.take(key, quick);
    await store.take(keys[0], noRefill('kept', 1));

    // Full for 0 ms: nothing is past even a margin of 0.
    expect(await store.sweepIdle(100, 0)).toBe(0);
    clock.advance(2);
    expect(await store.sweepIdle(100, 60)).toBe(0);
    expect(await store.sweepIdle(3, 0)).toBe(3);
    expect(await store.sweepIdle(3, 0)).toBe(2);
    expect(await store.sweepIdle(3, 0)).toBe(0);
    expect(await bucketCount()).toBe(1);
    // A swept bucket starts again full, as if it had been kept.
    expect(await store.take(keys[1], quick)).toEqual({ allowed: true });
  });

  it('answers 503 DATABASE_UNAVAILABLE, never lets the take through, when the statement fails', async () => {
    const unmigrated = await createTestDatabase({ empty: true });
    const pool = await new DataSource(buildDataSourceOptions(unmigrated.url, 1)).initialize();
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const error = await new PostgresBucketStore(pool).take('user:1', noRefill('broken', 1)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE', status: 503, retryAfterSeconds: expect.any(Number) });
      expect(logged).toHaveBeenCalledTimes(1);
    } finally {
      logged.mockRestore();
      await pool.destroy();
      await unmigrated.drop();
    }
  });
});
