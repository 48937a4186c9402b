import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../../src/common/errors/app-error';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import type { BucketDecision, BucketRule } from '../../src/rate-limit/bucket-store';
import { PostgresBucketStore } from '../../src/rate-limit/postgres-bucket-store';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A rule that practically never refills while a test runs. */
const noRefill = (name: string, capacity: number): BucketRule => ({ name, capacity, refillPerSecond: 0.0001 });

function retryAfterOf(decision: BucketDecision): number {
  if (decision.allowed) throw new Error('expected a refusal');
  return decision.retryAfterMs;
}

/**
 * The one statement of a take, against the real database: two stores on two pools
 * stand for two instances sharing the buckets.
 */
describe('PostgresBucketStore', () => {
  let database: TestDatabase;
  let pools: DataSource[];
  let store: PostgresBucketStore;
  let other: PostgresBucketStore;
  let nextKey = 1;
  const freshKey = () => `user:${nextKey++}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    pools = await Promise.all([0, 1].map(() => new DataSource(buildDataSourceOptions(database.url, 20)).initialize()));
    [store, other] = pools.map((pool) => new PostgresBucketStore(pool));
  });
  afterAll(async () => {
    await Promise.all((pools ?? []).map((pool) => pool.destroy()));
    await database?.drop();
  });

  const takeMany = async (key: string, rule: BucketRule, n: number) => {
    const decisions: BucketDecision[] = [];
    for (let i = 0; i < n; i++) decisions.push(await store.take(key, rule));
    return decisions;
  };
  const bucketCount = async () => (await pools[0].query<{ n: number }[]>('SELECT count(*)::int AS n FROM rate_limit_buckets'))[0].n;

  it('gives a new key its full burst, then refuses with the time to the next whole token', async () => {
    const rule: BucketRule = { name: 'slow', capacity: 3, refillPerSecond: 1 };
    const key = freshKey();
    const burstStarted = Date.now();
    expect(await takeMany(key, rule, 3)).toEqual(Array(3).fill({ allowed: true }));

    const retryAfterMs = retryAfterOf(await store.take(key, rule));
    const elapsedMs = Date.now() - burstStarted;
    // One token at 1 token/s takes 1000 ms, less what dripped in since the bucket was made
    // by the first take (a busy machine can take a few hundred ms over these four statements).
    expect(retryAfterMs).toBeGreaterThanOrEqual(1000 - elapsedMs - 2);
    expect(retryAfterMs).toBeLessThanOrEqual(1000);
  });

  it('scales the retry time with the refill rate, fractional rates included', async () => {
    const fast: BucketRule = { name: 'fast', capacity: 1, refillPerSecond: 2 };
    const authLike: BucketRule = { name: 'auth-like', capacity: 1, refillPerSecond: 0.5 };
    const key = freshKey();
    // Each bound allows for what dripped in between the two takes.
    let started = Date.now();
    await store.take(key, fast);
    const fastRetry = retryAfterOf(await store.take(key, fast));
    expect(fastRetry).toBeGreaterThanOrEqual(500 - (Date.now() - started) - 2);
    expect(fastRetry).toBeLessThanOrEqual(500);

    started = Date.now();
    await store.take(key, authLike);
    const slowRetry = retryAfterOf(await store.take(key, authLike));
    expect(slowRetry).toBeGreaterThanOrEqual(2000 - (Date.now() - started) - 2);
    expect(slowRetry).toBeLessThanOrEqual(2000);
  });

  it('refills over time, by the database clock, never above capacity', async () => {
    // 4 tokens/s: one token every 250 ms, room for a slow machine between the takes.
    const rule: BucketRule = { name: 'refill', capacity: 2, refillPerSecond: 4 };
    const key = freshKey();
    await takeMany(key, rule, 2);
    expect((await store.take(key, rule)).allowed).toBe(false);

    await sleep(400);
    expect(await store.take(key, rule)).toEqual({ allowed: true });

    // Long enough for many tokens: the bucket holds 2 at most.
    await sleep(1_200);
    expect(await takeMany(key, rule, 3)).toEqual([{ allowed: true }, { allowed: true }, expect.objectContaining({ allowed: false })]);
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
    await pools[0].query('DELETE FROM rate_limit_buckets');
    // 1000 tokens/s: full again 1 ms after the take.
    const quick: BucketRule = { name: 'quick', capacity: 1, refillPerSecond: 1000 };
    const keys = Array.from({ length: 5 }, freshKey);
    for (const key of keys) await store.take(key, quick);
    await store.take(keys[0], noRefill('kept', 1));
    await sleep(20);

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
