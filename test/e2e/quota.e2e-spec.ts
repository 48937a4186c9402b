import request from 'supertest';
import { bearerFor, createUser, serviceTokenFor } from '../support/fixtures';
import { QUIET_JOBS, RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/** Wednesday 18 November 2026, 12:00 in Korea. */
const WEDNESDAY = new Date('2026-11-18T03:00:00.000Z');
/** Monday 16 November 2026 00:00 in Korea. */
const WEEK_START = '2026-11-15T15:00:00.000Z';
const NEXT_WEEK_START = '2026-11-22T15:00:00.000Z';
const DAY_MS = 24 * 60 * 60 * 1000;

describe('weekly quota: GET /api/v1/quota and POST /api/v1/quota/ad-reward', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(() => {
    t.clock.set(WEDNESDAY);
  });

  const readQuota = (userId: number, app: TestApp = t) =>
    request(app.http).get('/api/v1/quota').set('Authorization', bearerFor(app, userId));
  const adReward = (userId: number, app: TestApp = t) =>
    request(app.http).post('/api/v1/quota/ad-reward').set('Authorization', bearerFor(app, userId));
  const storedRow = async (userId: number) =>
    (
      await t.dataSource.query<{ week_start: Date; weekly_used: number }[]>(
        'SELECT week_start, weekly_used FROM quota_usage WHERE user_id = $1',
        [userId],
      )
    )[0];
  const setUsed = (userId: number, used: number) =>
    t.dataSource.query('UPDATE quota_usage SET weekly_used = $2 WHERE user_id = $1', [userId, used]);

  describe('GET /api/v1/quota', () => {
    it('creates the row at the first read with weekly_used 0 and the week starting Monday 00:00 KST', async () => {
      const userId = await createUser(t.dataSource);
      expect(await storedRow(userId)).toBeUndefined();

      const res = await readQuota(userId).expect(200);
      expect(res.body).toEqual({
        tier: 'none',
        weekly_used: 0,
        weekly_limit: 10,
        remaining: 10,
        week_start: WEEK_START,
        next_reset_at: NEXT_WEEK_START,
      });
      const row = await storedRow(userId);
      expect(row.weekly_used).toBe(0);
      expect(row.week_start.toISOString()).toBe(WEEK_START);
    });

    it('answers 401 with the standard error body without a JWT', async () => {
      const res = await request(t.http).get('/api/v1/quota').expect(401);
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', code: 'UNAUTHORIZED' });
    });

    it('answers 401 for a token of a deleted user', async () => {
      const userId = await createUser(t.dataSource);
      const token = serviceTokenFor(t, userId);
      await t.dataSource.query('DELETE FROM users WHERE id = $1', [userId]);
      await request(t.http).get('/api/v1/quota').set('Authorization', `Bearer ${token}`).expect(401);
    });

    it.each([
      ['none', { tier: 'none', until: null }, 'none', 10],
      ['pro until next month', { tier: 'pro', until: new Date(WEDNESDAY.getTime() + 30 * DAY_MS) }, 'pro', 60],
      ['max until next month', { tier: 'max', until: new Date(WEDNESDAY.getTime() + 30 * DAY_MS) }, 'max', 200],
      ['max expired yesterday', { tier: 'max', until: new Date(WEDNESDAY.getTime() - DAY_MS) }, 'none', 10],
      ['pro without premium_until', { tier: 'pro', until: null }, 'none', 10],
    ] as const)('limits a user with %s to the active tier', async (_case, premium, tier, limit) => {
      const userId = await createUser(t.dataSource, premium);
      await readQuota(userId).expect(200);
      await setUsed(userId, 4);
      const res = await readQuota(userId).expect(200);
      expect(res.body).toMatchObject({ tier, weekly_used: 4, weekly_limit: limit, remaining: limit - 4 });
    });

    it('follows premium_until as the clock passes it', async () => {
      const userId = await createUser(t.dataSource, { tier: 'pro', until: new Date(WEDNESDAY.getTime() + 60_000) });
      expect((await readQuota(userId).expect(200)).body).toMatchObject({ tier: 'pro', weekly_limit: 60 });
      t.clock.advance(60_000);
      expect((await readQuota(userId).expect(200)).body).toMatchObject({ tier: 'none', weekly_limit: 10 });
    });

    it('clamps remaining to 0 when more was used than the limit allows', async () => {
      const userId = await createUser(t.dataSource);
      await readQuota(userId).expect(200);
      await setUsed(userId, 12);
      expect((await readQuota(userId).expect(200)).body).toMatchObject({ weekly_used: 12, weekly_limit: 10, remaining: 0 });
    });
  });

  describe('the week rollover at Monday 00:00 KST', () => {
    it('keeps the count until Sunday 14:59 UTC and resets it to 0 at 15:00 UTC', async () => {
      const userId = await createUser(t.dataSource);
      await readQuota(userId).expect(200);
      await setUsed(userId, 7);

      t.clock.set(new Date('2026-11-22T14:59:00.000Z'));
      expect((await readQuota(userId).expect(200)).body).toMatchObject({
        weekly_used: 7,
        remaining: 3,
        week_start: WEEK_START,
        next_reset_at: NEXT_WEEK_START,
      });

      t.clock.set(new Date('2026-11-22T15:00:00.000Z'));
      expect((await readQuota(userId).expect(200)).body).toEqual({
        tier: 'none',
        weekly_used: 0,
        weekly_limit: 10,
        remaining: 10,
        week_start: NEXT_WEEK_START,
        next_reset_at: '2026-11-29T15:00:00.000Z',
      });
      expect((await storedRow(userId)).week_start.toISOString()).toBe(NEXT_WEEK_START);
    });

    it('resets a negative count to 0 as well', async () => {
      const userId = await createUser(t.dataSource);
      t.clock.set(new Date('2026-11-22T14:59:00.000Z'));
      await adReward(userId).expect(200);
      expect((await adReward(userId).expect(200)).body).toMatchObject({ weekly_used: -2, remaining: 12 });

      t.clock.set(new Date('2026-11-22T15:00:00.000Z'));
      expect((await readQuota(userId).expect(200)).body).toMatchObject({
        weekly_used: 0,
        remaining: 10,
        week_start: NEXT_WEEK_START,
      });
    });

    it('resets before an ad reward in a new week, so the reward counts against the new week', async () => {
      const userId = await createUser(t.dataSource);
      await readQuota(userId).expect(200);
      await setUsed(userId, 9);
      t.clock.set(new Date('2026-11-23T00:00:00.000Z'));
      expect((await adReward(userId).expect(200)).body).toMatchObject({ weekly_used: -1, week_start: NEXT_WEEK_START });
    });
  });

  describe('POST /api/v1/quota/ad-reward in APP_ENV=local', () => {
    it('lowers weekly_used by one per call, below 0 too, and answers the quota response', async () => {
      const userId = await createUser(t.dataSource);
      await readQuota(userId).expect(200);
      await setUsed(userId, 1);

      expect((await adReward(userId).expect(200)).body).toEqual({
        tier: 'none',
        weekly_used: 0,
        weekly_limit: 10,
        remaining: 10,
        week_start: WEEK_START,
        next_reset_at: NEXT_WEEK_START,
      });
      expect((await adReward(userId).expect(200)).body).toMatchObject({ weekly_used: -1, remaining: 11 });
      expect((await adReward(userId).expect(200)).body).toMatchObject({ weekly_used: -2, remaining: 12 });
      expect((await readQuota(userId).expect(200)).body).toMatchObject({ weekly_used: -2 });
    });

    it('creates the row when the reward is the first use', async () => {
      const userId = await createUser(t.dataSource);
      expect((await adReward(userId).expect(200)).body).toMatchObject({ weekly_used: -1, week_start: WEEK_START });
    });

    it('counts every one of concurrent rewards', async () => {
      const userId = await createUser(t.dataSource);
      await readQuota(userId).expect(200);
      const results = await Promise.all(Array.from({ length: 6 }, () => adReward(userId)));
      expect(results.map((res) => res.status)).toEqual(Array(6).fill(200));
      expect((await readQuota(userId).expect(200)).body.weekly_used).toBe(-6);
    });

    it('answers 401 without a JWT and changes nothing', async () => {
      const res = await request(t.http).post('/api/v1/quota/ad-reward').expect(401);
      expect(res.body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    });

    it('is documented in the OpenAPI document with the quota response schema', async () => {
      const doc = (await request(t.http).get('/docs-json').expect(200)).body;
      const schemaRef = { $ref: '#/components/schemas/QuotaResponse' };
      expect(doc.paths['/api/v1/quota'].get.responses['200'].content['application/json'].schema).toEqual(schemaRef);
      expect(doc.paths['/api/v1/quota/ad-reward'].post.responses['200'].content['application/json'].schema).toEqual(schemaRef);
      expect(Object.keys(doc.components.schemas.QuotaResponse.properties).sort()).toEqual(
        ['next_reset_at', 'remaining', 'tier', 'week_start', 'weekly_limit', 'weekly_used'].sort(),
      );
    });
  });

  describe('POST /api/v1/quota/ad-reward in other environments', () => {
    it('works in APP_ENV=dev', async () => {
      const dev = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS, database: t.database, clock: t.clock, env: { APP_ENV: 'dev' } });
      try {
        const userId = await createUser(t.dataSource);
        expect((await adReward(userId, dev).expect(200)).body).toMatchObject({ weekly_used: -1, weekly_limit: 10 });
        expect((await adReward(userId, dev).expect(200)).body).toMatchObject({ weekly_used: -2 });
      } finally {
        await dev.close();
      }
    });

    it('does not exist in production: 404 with the standard body, with or without a JWT, and nothing granted', async () => {
      const production = await startTestApp({
        rateLimits: RELAXED_RATE_LIMITS,
        database: t.database,
        clock: t.clock,
        env: { APP_ENV: 'production', ...QUIET_JOBS },
      });
      try {
        const userId = await createUser(t.dataSource);
        expect((await readQuota(userId, production).expect(200)).body).toMatchObject({ weekly_used: 0 });

        const withJwt = await adReward(userId, production).expect(404);
        expect(withJwt.body).toEqual({ statusCode: 404, error: 'Not Found', message: expect.any(String), code: 'NOT_FOUND' });
        const anonymous = await request(production.http).post('/api/v1/quota/ad-reward').expect(404);
        expect(anonymous.body).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
        // Exactly what a route that never existed answers.
        const unknown = await request(production.http).post('/api/v1/quota/no-such-route').expect(404);
        expect(withJwt.body.message).toBe(unknown.body.message.replace('no-such-route', 'ad-reward'));

        expect((await readQuota(userId, production).expect(200)).body).toMatchObject({ weekly_used: 0 });
        const doc = (await request(production.http).get('/docs-json').expect(200)).body;
        expect(doc.paths['/api/v1/quota']).toBeDefined();
        expect(doc.paths['/api/v1/quota/ad-reward']).toBeUndefined();
      } finally {
        await production.close();
      }
    });
  });
});
