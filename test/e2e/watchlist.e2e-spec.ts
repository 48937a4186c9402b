import request from 'supertest';
import { WatchlistService } from '../../src/watchlist/watchlist.service';
import { bearerFor, createUser, type UserFixture } from '../support/fixtures';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/** Wednesday 18 November 2026, 12:00 in Korea. */
const NOW = new Date('2026-11-18T03:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const PRO_NEXT_MONTH: UserFixture = { tier: 'pro', until: new Date(NOW.getTime() + 30 * DAY_MS) };

/** The stock master of these tests: 150 companies, `10000000` … `10000149`. */
const corpCode = (n: number) => String(10_000_000 + n);
const corpName = (n: number) => `감시회사${n}`;
const stockCode = (n: number) => String(100_000 + n);
const STOCK_COUNT = 150;
/** In the format, but not in the master. */
const UNLISTED = '99999999';

describe('watchlist: /api/v1/watchlist', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
    const numbers = Array.from({ length: STOCK_COUNT }, (_, n) => n);
    await t.dataSource.query(
      `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type)
       SELECT code, name, stock, 'Y' FROM unnest($1::text[], $2::text[], $3::text[]) AS s (code, name, stock)`,
      [numbers.map(corpCode), numbers.map(corpName), numbers.map(stockCode)],
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(() => {
    t.clock.set(NOW);
  });

  const bearer = (userId: number) => bearerFor(t, userId);
  const list = (userId: number) => request(t.http).get('/api/v1/watchlist').set('Authorization', bearer(userId));
  const capacity = (userId: number) => request(t.http).get('/api/v1/watchlist/capacity').set('Authorization', bearer(userId));
  const add = (userId: number, body: unknown) =>
    request(t.http)
      .post('/api/v1/watchlist')
      .set('Authorization', bearer(userId))
      .send(body as object);
  const addCorp = (userId: number, n: number) => add(userId, { corp_code: corpCode(n) });
  const remove = (userId: number, code: string) => request(t.http).delete(`/api/v1/watchlist/${code}`).set('Authorization', bearer(userId));
  const setNotify = (userId: number, code: string, body: unknown) =>
    request(t.http)
      .patch(`/api/v1/watchlist/${code}/notify`)
      .set('Authorization', bearer(userId))
      .send(body as object);

  const storedEntries = (userId: number) =>
    t.dataSource.query<{ corp_code: string; corp_name: string; stock_code: string | null; notify_enabled: boolean }[]>(
      'SELECT corp_code, corp_name, stock_code, notify_enabled FROM watch_stocks WHERE user_id = $1 ORDER BY corp_code',
      [userId],
    );
  /** Entries written straight to the table, beside the capacity check (a downgraded user's leftovers). */
  const insertEntries = (userId: number, numbers: number[]) =>
    t.dataSource.query(
      `INSERT INTO watch_stocks (user_id, corp_code, corp_name, stock_code)
       SELECT $1, code, name, stock FROM unnest($2::text[], $3::text[], $4::text[]) AS s (code, name, stock)`,
      [userId, numbers.map(corpCode), numbers.map(corpName), numbers.map(stockCode)],
    );
  const setCreatedAt = (userId: number, n: number, at: string) =>
    t.dataSource.query('UPDATE watch_stocks SET created_at = $3 WHERE user_id = $1 AND corp_code = $2', [userId, corpCode(n), at]);

  describe('authentication', () => {
    it.each([
      ['get', '/api/v1/watchlist', undefined],
      ['get', '/api/v1/watchlist/capacity', undefined],
      ['post', '/api/v1/watchlist', { corp_code: corpCode(1) }],
      ['delete', `/api/v1/watchlist/${corpCode(1)}`, undefined],
      ['patch', `/api/v1/watchlist/${corpCode(1)}/notify`, { notify_enabled: false }],
    ] as const)('answers 401 for %s %s without a JWT, with a bad one and for a deleted user', async (method, path, body) => {
      const call = () => (body ? request(t.http)[method](path).send(body) : request(t.http)[method](path));
      const anonymous = await call().expect(401);
      expect(anonymous.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', code: 'UNAUTHORIZED' });
      await call().set('Authorization', 'Bearer not-a-jwt').expect(401);

      const userId = await createUser(t.dataSource);
      const token = bearer(userId);
      await t.dataSource.query('DELETE FROM users WHERE id = $1', [userId]);
      await call().set('Authorization', token).expect(401);
    });

    it('answers 401 for an expired JWT', async () => {
      const userId = await createUser(t.dataSource);
      const token = bearer(userId);
      t.clock.advance(t.config.jwt.expirationMs + 1000);
      await request(t.http).get('/api/v1/watchlist').set('Authorization', token).expect(401);
    });
  });

  describe('POST /api/v1/watchlist', () => {
    it('answers 201 with the new entry, named by the columns, copied from the stock master', async () => {
      const userId = await createUser(t.dataSource);
      const res = await addCorp(userId, 1).expect(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        user_id: userId,
        corp_code: corpCode(1),
        corp_name: corpName(1),
        stock_code: stockCode(1),
        notify_enabled: true,
        categories: null,
        min_impact: null,
        created_at: expect.stringMatching(RFC3339_UTC),
      });
      const [stored] = await t.dataSource.query<{ id: number; created_at: Date }[]>(
        'SELECT id, created_at FROM watch_stocks WHERE user_id = $1',
        [userId],
      );
      expect(res.body.id).toBe(stored.id);
      expect(res.body.created_at).toBe(stored.created_at.toISOString());
      expect(await storedEntries(userId)).toEqual([
        { corp_code: corpCode(1), corp_name: corpName(1), stock_code: stockCode(1), notify_enabled: true },
      ]);
    });

    it('keeps the name and stock code of the moment it was added when the master changes later', async () => {
      const userId = await createUser(t.dataSource);
      await addCorp(userId, 2).expect(201);
      await t.dataSource.query("UPDATE stocks SET corp_name = '새이름', stock_code = '777777' WHERE corp_code = $1", [corpCode(2)]);
      try {
        expect((await list(userId).expect(200)).body[0]).toMatchObject({ corp_name: corpName(2), stock_code: stockCode(2) });
        // A later add copies the master as it is then.
        const other = await createUser(t.dataSource);
        expect((await addCorp(other, 2).expect(201)).body).toMatchObject({ corp_name: '새이름', stock_code: '777777' });
      } finally {
        await t.dataSource.query('UPDATE stocks SET corp_name = $2, stock_code = $3 WHERE corp_code = $1', [
          corpCode(2),
          corpName(2),
          stockCode(2),
        ]);
      }
    });

    it('answers an existing entry with 201 as it is, without a second row', async () => {
      const userId = await createUser(t.dataSource);
      const first = (await addCorp(userId, 3).expect(201)).body;
      await setNotify(userId, corpCode(3), { notify_enabled: false }).expect(200);
      const again = await addCorp(userId, 3).expect(201);
      expect(again.body).toEqual({ ...first, notify_enabled: false });
      expect(await storedEntries(userId)).toHaveLength(1);
    });

    it('answers an existing entry with 201 even when the watchlist is full, and 409 for a new one', async () => {
      const userId = await createUser(t.dataSource);
      for (const n of [4, 5, 6]) await addCorp(userId, n).expect(201);
      expect((await addCorp(userId, 5).expect(201)).body).toMatchObject({ corp_code: corpCode(5), user_id: userId });

      const full = await addCorp(userId, 7).expect(409);
      expect(full.body).toEqual({
        statusCode: 409,
        error: 'Conflict',
        message: expect.any(String),
        code: 'WATCHLIST_FULL',
        capacity: 3,
        used: 3,
      });
      expect((await storedEntries(userId)).map((e) => e.corp_code)).toEqual([corpCode(4), corpCode(5), corpCode(6)]);
    });

    it('answers an existing entry even when its company has left the stock master since', async () => {
      const userId = await createUser(t.dataSource);
      await t.dataSource.query(
        "INSERT INTO watch_stocks (user_id, corp_code, corp_name, stock_code) VALUES ($1, '88888888', '상장폐지회사', NULL)",
        [userId],
      );
      const res = await add(userId, { corp_code: '88888888' }).expect(201);
      expect(res.body).toMatchObject({ corp_code: '88888888', corp_name: '상장폐지회사', stock_code: null });
    });

    it('answers 400 UNKNOWN_STOCK for a corp_code that is not in the stock master, storing nothing', async () => {
      const userId = await createUser(t.dataSource);
      const res = await add(userId, { corp_code: UNLISTED }).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'UNKNOWN_STOCK' });
      expect(res.body.message).toContain(UNLISTED);
      expect(await storedEntries(userId)).toEqual([]);
    });

    it.each([
      ['missing', {}],
      ['null', { corp_code: null }],
      ['empty', { corp_code: '' }],
      ['seven digits', { corp_code: '1000000' }],
      ['nine digits', { corp_code: '100000001' }],
      ['not only digits', { corp_code: '1000000a' }],
      ['padded', { corp_code: ' 10000001' }],
      ['a number', { corp_code: 10000001 }],
    ])('answers 400 VALIDATION_FAILED when corp_code is %s', async (_case, body) => {
      const userId = await createUser(t.dataSource);
      const res = await add(userId, body).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.message).toContain('corp_code');
      expect(await storedEntries(userId)).toEqual([]);
    });

    it('lets a pro user add up to 30 and refuses the 31st', async () => {
      const userId = await createUser(t.dataSource, PRO_NEXT_MONTH);
      await insertEntries(
        userId,
        Array.from({ length: 28 }, (_, i) => 100 + i),
      );
      await addCorp(userId, 10).expect(201);
      await addCorp(userId, 11).expect(201);
      const full = await addCorp(userId, 12).expect(409);
      expect(full.body).toMatchObject({ code: 'WATCHLIST_FULL', capacity: 30, used: 30 });
    });

    it('holds an expired subscription to the capacity of none', async () => {
      const userId = await createUser(t.dataSource, { tier: 'max', until: new Date(NOW.getTime() - DAY_MS) });
      for (const n of [20, 21, 22]) await addCorp(userId, n).expect(201);
      expect((await addCorp(userId, 23).expect(409)).body).toMatchObject({ capacity: 3, used: 3 });
    });

    it('refuses with remaining <= 0 also when a downgraded user holds more than the capacity', async () => {
      const userId = await createUser(t.dataSource);
      await insertEntries(userId, [30, 31, 32, 33, 34]);
      expect((await addCorp(userId, 35).expect(409)).body).toMatchObject({ capacity: 3, used: 5 });
    });
  });

  describe('GET /api/v1/watchlist', () => {
    it('answers [] for an empty watchlist', async () => {
      const userId = await createUser(t.dataSource);
      expect((await list(userId).expect(200)).body).toEqual([]);
    });

    it('lists only the caller’s entries, created_at descending, then id descending', async () => {
      const userId = await createUser(t.dataSource, PRO_NEXT_MONTH);
      const other = await createUser(t.dataSource);
      for (const n of [40, 41, 42, 43]) await addCorp(userId, n).expect(201);
      await addCorp(other, 44).expect(201);
      // An order that is not the insertion (id) order, with one tie broken by the id.
      await setCreatedAt(userId, 40, '2026-11-10T00:00:00.000Z');
      await setCreatedAt(userId, 41, '2026-11-12T00:00:00.000Z');
      await setCreatedAt(userId, 42, '2026-11-01T00:00:00.000Z');
      await setCreatedAt(userId, 43, '2026-11-10T00:00:00.000Z');

      const res = await list(userId).expect(200);
      expect(res.body.map((entry: { corp_code: string }) => entry.corp_code)).toEqual([
        corpCode(41),
        corpCode(43),
        corpCode(40),
        corpCode(42),
      ]);
      expect(res.body[0]).toEqual({
        id: expect.any(Number),
        user_id: userId,
        corp_code: corpCode(41),
        corp_name: corpName(41),
        stock_code: stockCode(41),
        notify_enabled: true,
        categories: null,
        min_impact: null,
        created_at: '2026-11-12T00:00:00.000Z',
      });
      expect((await list(other).expect(200)).body.map((entry: { corp_code: string }) => entry.corp_code)).toEqual([corpCode(44)]);
    });

    it('lists newest first without touching created_at by hand', async () => {
      const userId = await createUser(t.dataSource);
      for (const n of [45, 46, 47]) await addCorp(userId, n).expect(201);
      const res = await list(userId).expect(200);
      expect(res.body.map((entry: { corp_code: string }) => entry.corp_code)).toEqual([corpCode(47), corpCode(46), corpCode(45)]);
    });
  });

  describe('GET /api/v1/watchlist/capacity', () => {
    it.each([
      ['none', { tier: 'none', until: null }, 3],
      ['pro until next month', PRO_NEXT_MONTH, 30],
      ['max until next month', { tier: 'max', until: new Date(NOW.getTime() + 30 * DAY_MS) }, 100],
      ['pro expired yesterday', { tier: 'pro', until: new Date(NOW.getTime() - DAY_MS) }, 3],
      ['max without premium_until', { tier: 'max', until: null }, 3],
    ] as const)('gives a user with %s the capacity of the active tier', async (_case, premium, expected) => {
      const userId = await createUser(t.dataSource, premium);
      expect((await capacity(userId).expect(200)).body).toEqual({ capacity: expected, used: 0, remaining: expected });
      await addCorp(userId, 50).expect(201);
      await addCorp(userId, 51).expect(201);
      expect((await capacity(userId).expect(200)).body).toEqual({ capacity: expected, used: 2, remaining: expected - 2 });
    });

    it('follows premium_until as the clock passes it', async () => {
      const userId = await createUser(t.dataSource, { tier: 'pro', until: new Date(NOW.getTime() + 60_000) });
      await insertEntries(userId, [52, 53, 54, 55]);
      expect((await capacity(userId).expect(200)).body).toEqual({ capacity: 30, used: 4, remaining: 26 });
      t.clock.advance(60_000);
      expect((await capacity(userId).expect(200)).body).toEqual({ capacity: 3, used: 4, remaining: 0 });
      await addCorp(userId, 56).expect(409);
    });

    it('counts the caller’s entries only and never answers a negative remaining', async () => {
      const userId = await createUser(t.dataSource);
      const other = await createUser(t.dataSource);
      await insertEntries(userId, [57, 58, 59, 60, 61]);
      await insertEntries(other, [62]);
      expect((await capacity(userId).expect(200)).body).toEqual({ capacity: 3, used: 5, remaining: 0 });
      expect((await capacity(other).expect(200)).body).toEqual({ capacity: 3, used: 1, remaining: 2 });
    });
  });

  describe('DELETE /api/v1/watchlist/{corpCode}', () => {
    it('removes the entry with 204, frees its place, then answers 404', async () => {
      const userId = await createUser(t.dataSource);
      for (const n of [63, 64, 65]) await addCorp(userId, n).expect(201);
      const res = await remove(userId, corpCode(64)).expect(204);
      expect(res.text).toBe('');
      expect((await storedEntries(userId)).map((e) => e.corp_code)).toEqual([corpCode(63), corpCode(65)]);
      expect((await capacity(userId).expect(200)).body).toEqual({ capacity: 3, used: 2, remaining: 1 });
      await addCorp(userId, 66).expect(201);

      const again = await remove(userId, corpCode(64)).expect(404);
      expect(again.body).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'WATCH_ENTRY_NOT_FOUND' });
    });

    it('answers 404 for a company another user watches, and leaves that entry alone', async () => {
      const userId = await createUser(t.dataSource);
      const other = await createUser(t.dataSource);
      await addCorp(other, 67).expect(201);
      await remove(userId, corpCode(67)).expect(404);
      expect(await storedEntries(other)).toHaveLength(1);
    });

    it.each(['1234567', '123456789', 'abcdefgh'])('answers 400 for the malformed corpCode %s', async (code) => {
      const userId = await createUser(t.dataSource);
      expect((await remove(userId, code).expect(400)).body).toMatchObject({ code: 'VALIDATION_FAILED' });
    });
  });

  describe('PATCH /api/v1/watchlist/{corpCode}/notify', () => {
    it('turns notifications off and on, answering the entry', async () => {
      const userId = await createUser(t.dataSource);
      const added = (await addCorp(userId, 70).expect(201)).body;

      const off = await setNotify(userId, corpCode(70), { notify_enabled: false }).expect(200);
      expect(off.body).toEqual({ ...added, notify_enabled: false });
      expect((await storedEntries(userId))[0].notify_enabled).toBe(false);
      expect((await list(userId).expect(200)).body[0].notify_enabled).toBe(false);

      const on = await setNotify(userId, corpCode(70), { notify_enabled: true }).expect(200);
      expect(on.body).toEqual(added);
      expect((await storedEntries(userId))[0].notify_enabled).toBe(true);
    });

    it('answers 404 for a company not on the caller’s watchlist, also one another user watches', async () => {
      const userId = await createUser(t.dataSource);
      const other = await createUser(t.dataSource);
      await addCorp(other, 71).expect(201);
      const res = await setNotify(userId, corpCode(71), { notify_enabled: false }).expect(404);
      expect(res.body).toMatchObject({ statusCode: 404, code: 'WATCH_ENTRY_NOT_FOUND' });
      expect((await storedEntries(other))[0].notify_enabled).toBe(true);
    });

    it.each([
      ['missing', {}],
      ['null', { notify_enabled: null }],
      ['the string "true"', { notify_enabled: 'true' }],
      ['the string "false"', { notify_enabled: 'false' }],
      ['a number', { notify_enabled: 0 }],
    ])('answers 400 when notify_enabled is %s, changing nothing', async (_case, body) => {
      const userId = await createUser(t.dataSource);
      await addCorp(userId, 72).expect(201);
      const res = await setNotify(userId, corpCode(72), body).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.message).toContain('notify_enabled');
      expect((await storedEntries(userId))[0].notify_enabled).toBe(true);
    });

    it('answers 400 for a malformed corpCode', async () => {
      const userId = await createUser(t.dataSource);
      await setNotify(userId, '1234', { notify_enabled: false }).expect(400);
    });
  });

  describe('concurrency', () => {
    it('lets 20 parallel adds of different companies fill a capacity of 3 and no more', async () => {
      const userId = await createUser(t.dataSource);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => addCorp(userId, 80 + i)));
      const statuses = results.map((res) => res.status).sort();
      expect(statuses).toEqual([...Array(3).fill(201), ...Array(17).fill(409)]);
      for (const refused of results.filter((res) => res.status === 409)) {
        expect(refused.body).toMatchObject({ code: 'WATCHLIST_FULL', capacity: 3, used: 3 });
      }
      const stored = await storedEntries(userId);
      expect(stored).toHaveLength(3);
      const accepted = results.filter((res) => res.status === 201).map((res) => res.body.corp_code as string);
      expect(stored.map((e) => e.corp_code)).toEqual(accepted.sort());
      expect((await capacity(userId).expect(200)).body).toEqual({ capacity: 3, used: 3, remaining: 0 });
    });

    it('fills the last places of a pro user exactly under parallel adds', async () => {
      const userId = await createUser(t.dataSource, PRO_NEXT_MONTH);
      await insertEntries(
        userId,
        Array.from({ length: 28 }, (_, i) => 100 + i),
      );
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => addCorp(userId, 80 + i)));
      expect(results.filter((res) => res.status === 201)).toHaveLength(2);
      expect(results.filter((res) => res.status === 409)).toHaveLength(8);
      expect(await storedEntries(userId)).toHaveLength(30);
    });

    it('stores one entry when the same company is added in parallel, answering it to every call', async () => {
      const userId = await createUser(t.dataSource);
      const results = await Promise.all(Array.from({ length: 8 }, () => addCorp(userId, 75)));
      expect(results.map((res) => res.status)).toEqual(Array(8).fill(201));
      expect(new Set(results.map((res) => res.body.id)).size).toBe(1);
      expect(await storedEntries(userId)).toHaveLength(1);
    });
  });

  describe('WatchlistService.trimToCapacity (for the downgrade cleanup)', () => {
    it('removes the oldest entries above the capacity of the tier active now, keeping the newest', async () => {
      const userId = await createUser(t.dataSource, { tier: 'pro', until: new Date(NOW.getTime() - DAY_MS) });
      await insertEntries(userId, [90, 91, 92, 93, 94]);
      await setCreatedAt(userId, 90, '2026-11-05T00:00:00.000Z');
      await setCreatedAt(userId, 91, '2026-11-01T00:00:00.000Z');
      await setCreatedAt(userId, 92, '2026-11-04T00:00:00.000Z');
      await setCreatedAt(userId, 93, '2026-11-02T00:00:00.000Z');
      await setCreatedAt(userId, 94, '2026-11-03T00:00:00.000Z');

      expect(await t.app.get(WatchlistService).trimToCapacity(userId)).toBe(2);
      expect((await storedEntries(userId)).map((e) => e.corp_code)).toEqual([corpCode(90), corpCode(92), corpCode(94)]);
      expect(await t.app.get(WatchlistService).trimToCapacity(userId)).toBe(0);
    });

    it('removes nothing while the subscription is active, or for a user that is gone', async () => {
      const userId = await createUser(t.dataSource, PRO_NEXT_MONTH);
      await insertEntries(userId, [95, 96, 97, 98]);
      expect(await t.app.get(WatchlistService).trimToCapacity(userId)).toBe(0);
      expect(await storedEntries(userId)).toHaveLength(4);
      expect(await t.app.get(WatchlistService).trimToCapacity(2_000_000_000)).toBe(0);
    });
  });

  describe('withdrawal', () => {
    it('deletes the user’s watch entries and keeps everyone else’s', async () => {
      const userId = await createUser(t.dataSource);
      const other = await createUser(t.dataSource);
      for (const n of [140, 141]) await addCorp(userId, n).expect(201);
      await addCorp(other, 140).expect(201);

      await request(t.http)
        .delete('/api/v1/auth/withdraw')
        .set('Authorization', bearer(userId))
        .set('X-Confirm-Withdraw', 'yes')
        .expect(204);

      const [{ n }] = await t.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM watch_stocks WHERE user_id = $1', [userId]);
      expect(n).toBe(0);
      expect(await storedEntries(other)).toHaveLength(1);
    });
  });

  describe('OpenAPI', () => {
    it('documents the routes with their bodies, responses and errors', async () => {
      const doc = (await request(t.http).get('/docs-json').expect(200)).body;
      const json = (schemaName: string) => ({ $ref: `#/components/schemas/${schemaName}` });
      const watchlist = doc.paths['/api/v1/watchlist'];
      expect(watchlist.get.responses['200'].content['application/json'].schema).toEqual({ type: 'array', items: json('WatchEntryView') });
      expect(watchlist.post.requestBody.content['application/json'].schema).toEqual(json('AddWatchRequest'));
      expect(watchlist.post.responses['201'].content['application/json'].schema).toEqual(json('WatchEntryView'));
      expect(watchlist.post.responses['409'].content['application/json'].schema).toEqual(json('WatchlistFullErrorBody'));
      expect(Object.keys(watchlist.post.responses).sort()).toEqual(['201', '400', '401', '409', '413', '414', '415', '429', '500', '503']);
      expect(doc.paths['/api/v1/watchlist/capacity'].get.responses['200'].content['application/json'].schema).toEqual(
        json('WatchlistCapacityResponse'),
      );
      expect(Object.keys(doc.paths['/api/v1/watchlist/{corpCode}'].delete.responses).sort()).toEqual([
        '204',
        '400',
        '401',
        '404',
        '414',
        '429',
        '500',
        '503',
      ]);
      const notify = doc.paths['/api/v1/watchlist/{corpCode}/notify'].patch;
      expect(notify.requestBody.content['application/json'].schema).toEqual(json('SetNotifyRequest'));
      expect(Object.keys(notify.responses).sort()).toEqual(['200', '400', '401', '404', '413', '414', '415', '429', '500', '503']);
      expect(Object.keys(doc.components.schemas.WatchEntryView.properties).sort()).toEqual(
        ['categories', 'corp_code', 'corp_name', 'created_at', 'id', 'min_impact', 'notify_enabled', 'stock_code', 'user_id'].sort(),
      );
      expect(doc.components.schemas.WatchlistFullErrorBody.properties).toMatchObject({ capacity: {}, used: {} });
    });
  });
});
