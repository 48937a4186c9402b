import request from 'supertest';
import { bearerFor, createUser } from '../support/fixtures';
import { ADMIN_KEY } from '../support/sandboxed-app';
import { PRODUCTION_ADMIN_KEY, RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const DAY_MS = 24 * 60 * 60 * 1000;
const corpCode = (n: number) => String(20_000_000 + n);

describe('POST /api/v1/admin/users/{userId}/tier (local and dev)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS, env: { ADMIN_KEY, APP_ENV: 'dev' } });
    const numbers = Array.from({ length: 40 }, (_, n) => n);
    await t.dataSource.query(
      `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type)
       SELECT code, 'company ' || code, right(code, 6), 'Y' FROM unnest($1::text[]) AS s (code)`,
      [numbers.map(corpCode)],
    );
  });
  afterAll(() => t?.close());

  const setTier = (userId: number | string, body: object, key: string | null = ADMIN_KEY) => {
    const call = request(t.http).post(`/api/v1/admin/users/${userId}/tier`).send(body);
    return key === null ? call : call.set('X-Admin-Key', key);
  };
  const capacity = async (userId: number) =>
    (await request(t.http).get('/api/v1/watchlist/capacity').set('Authorization', bearerFor(t, userId))).body as {
      capacity: number;
      used: number;
    };
  const watch = (userId: number, n: number) =>
    request(t.http)
      .post('/api/v1/watchlist')
      .set('Authorization', bearerFor(t, userId))
      .send({ corp_code: corpCode(n) });

  it('raises a user to max for the given days, and the capacity follows', async () => {
    const userId = await createUser(t.dataSource);
    expect((await capacity(userId)).capacity).toBe(3);

    const response = await setTier(userId, { tier: 'max', days: 30 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      user_id: userId,
      tier: 'max',
      premium_until: new Date(t.clock.nowMs() + 30 * DAY_MS).toISOString(),
      downgraded_at: null,
    });
    expect((await capacity(userId)).capacity).toBe(100);
    expect((await request(t.http).get('/api/v1/quota').set('Authorization', bearerFor(t, userId))).body).toMatchObject({ tier: 'max' });
  });

  it('downgrades through the tier transitions: the 7-day timer starts, and the watchlist is trimmed after it', async () => {
    const userId = await createUser(t.dataSource);
    await setTier(userId, { tier: 'pro', days: 10 });
    for (let n = 0; n < 5; n++) expect((await watch(userId, n)).status).toBe(201);

    const dropped = await setTier(userId, { tier: 'none' });
    expect(dropped.status).toBe(200);
    expect(dropped.body).toEqual({ user_id: userId, tier: 'none', premium_until: null, downgraded_at: t.clock.now().toISOString() });
    expect(await capacity(userId)).toMatchObject({ capacity: 3, used: 5 });

    t.clock.advance(7 * DAY_MS + 1000);
    const entries = await request(t.http).get('/api/v1/watchlist').set('Authorization', bearerFor(t, userId));
    expect(entries.body).toHaveLength(3);

    // A rise clears the pending moment, as a store's would.
    const again = await setTier(userId, { tier: 'none' });
    expect(again.body.downgraded_at).toBeNull();
    await setTier(userId, { tier: 'pro', days: 1 });
    const risen = await setTier(userId, { tier: 'max', days: 1 });
    expect(risen.body).toMatchObject({ tier: 'max', downgraded_at: null });
  });

  it('lapses at the end of the days like a store tier', async () => {
    const userId = await createUser(t.dataSource);
    await setTier(userId, { tier: 'pro', days: 1 });
    expect((await capacity(userId)).capacity).toBe(30);
    t.clock.advance(DAY_MS + 1000);
    expect((await capacity(userId)).capacity).toBe(3);
  });

  it.each([
    ['an unknown tier', { tier: 'gold', days: 1 }],
    ['pro without days', { tier: 'pro' }],
    ['zero days', { tier: 'max', days: 0 }],
    ['fractional days', { tier: 'max', days: 1.5 }],
    ['days as a string', { tier: 'max', days: '30' }],
    ['too many days', { tier: 'max', days: 3651 }],
  ])('refuses %s with 400 and leaves the user as they were', async (_, body) => {
    const userId = await createUser(t.dataSource);
    const response = await setTier(userId, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect((await capacity(userId)).capacity).toBe(3);
  });

  // One spelling per id: plain digits, as the id is written everywhere else. Number() or parseInt()
  // would read most of these as the user aimed at; a leading zero is refused too, so one user has one URL.
  const fullWidth = (id: number) => encodeURIComponent(String(id).replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d))));
  it.each([
    ['hexadecimal', (id: number) => `0x${id.toString(16)}`],
    ['a leading space', (id: number) => `%20${id}`],
    ['a trailing space', (id: number) => `${id}%20`],
    ['an exponent', (id: number) => `${id}e0`],
    ['1e3', () => '1e3'],
    ['a minus', (id: number) => `-${id}`],
    ['a plus', (id: number) => `%2B${id}`],
    ['a fraction', (id: number) => `${id}.0`],
    ['a leading zero', (id: number) => `0${id}`],
    ['zero', () => '0'],
    ['past the integer column', () => '2147483648'],
    ['far past it', () => '9'.repeat(40)],
    ['full-width digits', fullWidth],
  ])('refuses a user id written with %s with 400 VALIDATION_FAILED, and changes nobody', async (_, written) => {
    const userId = await createUser(t.dataSource);
    const response = await setTier(written(userId), { tier: 'max', days: 1 });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED', message: expect.stringContaining('userId') });
    expect((await capacity(userId)).capacity).toBe(3);
  });

  it('takes the largest id the column holds and a plain id as they are', async () => {
    expect((await setTier('2147483647', { tier: 'max', days: 1 })).status).toBe(404);
    const userId = await createUser(t.dataSource);
    expect((await setTier(String(userId), { tier: 'pro', days: 1 })).body).toMatchObject({ user_id: userId, tier: 'pro' });
  });

  it('answers 400 for a malformed user id and 404 for an unknown user', async () => {
    expect((await setTier('abc', { tier: 'max', days: 1 })).body.code).toBe('VALIDATION_FAILED');
    expect((await setTier(0, { tier: 'max', days: 1 })).body.code).toBe('VALIDATION_FAILED');
    expect((await setTier('99999999999', { tier: 'max', days: 1 })).body.code).toBe('VALIDATION_FAILED');
    const unknown = await setTier(2_000_000_000, { tier: 'max', days: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });

  it('is an operator route: 401 without or with a wrong key', async () => {
    const userId = await createUser(t.dataSource);
    expect((await setTier(userId, { tier: 'max', days: 1 }, null)).status).toBe(401);
    expect((await setTier(userId, { tier: 'max', days: 1 }, 'wrong')).status).toBe(401);
    expect((await capacity(userId)).capacity).toBe(3);
  });

  it('takes parallel changes of one user in turns: the last one wins, whole', async () => {
    const userId = await createUser(t.dataSource);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => setTier(userId, i % 2 === 0 ? { tier: 'max', days: 5 } : { tier: 'pro', days: 3 })),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const [row] = await t.dataSource.query<{ premium_tier: string; premium_until: Date }[]>(
      'SELECT premium_tier, premium_until FROM users WHERE id = $1',
      [userId],
    );
    // Tier and expiry always come from the same request.
    const days = row.premium_tier === 'max' ? 5 : 3;
    expect(row.premium_until.getTime()).toBe(t.clock.nowMs() + days * DAY_MS);
  });
});

describe('POST /api/v1/admin/users/{userId}/tier in production', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { APP_ENV: 'production', ADMIN_KEY: PRODUCTION_ADMIN_KEY } });
  });
  afterAll(() => t?.close());

  it('does not exist: 404 before any key check, and nothing changes', async () => {
    const userId = await createUser(t.dataSource);
    for (const key of [PRODUCTION_ADMIN_KEY, undefined]) {
      const call = request(t.http).post(`/api/v1/admin/users/${userId}/tier`).send({ tier: 'max', days: 30 });
      const response = await (key ? call.set('X-Admin-Key', key) : call);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND', message: `Cannot POST /api/v1/admin/users/${userId}/tier` });
    }
    const [row] = await t.dataSource.query<{ premium_tier: string }[]>('SELECT premium_tier FROM users WHERE id = $1', [userId]);
    expect(row.premium_tier).toBe('none');
  });
});
