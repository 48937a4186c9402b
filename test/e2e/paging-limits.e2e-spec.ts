import request from 'supertest';
import { kstDate } from '../../src/common/korea-time';
import { bearerFor, createUser, insertAnalyses, insertFilings, type FilingFixture } from '../support/fixtures';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const ADMIN_KEY = 'admin-key-of-the-paging-test';
/** A company with more filings than any route answers at once. */
const CORP = '00000001';
const FILINGS_OF_CORP = 210;
/** Companies with a summarised filing today: more than stocks/active and hasSummary=true answer. */
const SUMMARISED_TODAY = 25;

interface Route {
  name: string;
  path: string;
  query: Record<string, string>;
  fallback: number;
  max: number;
  caller?: 'user' | 'admin';
}

/**
 * One rule for every `limit` (docs/request-pipeline.md, "Limits outside their range"): absent,
 * the route's default; an integer outside 1..max, clamped into it; anything else, 400. Each
 * route has more rows than its maximum, so the number of rows shows the limit it applied.
 */
describe('limits outside their range', () => {
  let t: TestApp;
  let user: number;

  const ROUTES: Route[] = [
    { name: 'disclosures/recent', path: '/api/v1/disclosures/recent', query: {}, fallback: 10, max: 50 },
    { name: 'disclosures?corpCode', path: '/api/v1/disclosures', query: { corpCode: CORP }, fallback: 50, max: 200 },
    {
      name: 'disclosures?beginDate&endDate',
      path: '/api/v1/disclosures',
      query: { beginDate: '20260101', endDate: '20991231' },
      fallback: 50,
      max: 200,
    },
    { name: 'disclosures?hasSummary=true', path: '/api/v1/disclosures', query: { hasSummary: 'true' }, fallback: 20, max: 20 },
    { name: 'stocks/active', path: '/api/v1/stocks/active', query: {}, fallback: 8, max: 20 },
    { name: 'watchlist/disclosures', path: '/api/v1/watchlist/disclosures', query: {}, fallback: 20, max: 50, caller: 'user' },
    { name: 'push/history', path: '/api/v1/push/history', query: {}, fallback: 20, max: 50, caller: 'user' },
    { name: 'admin/push/messages', path: '/api/v1/admin/push/messages', query: {}, fallback: 20, max: 200, caller: 'admin' },
  ];

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS, env: { ADMIN_KEY } });
    const today = kstDate(t.clock.now());
    const ofCorp: FilingFixture[] = Array.from({ length: FILINGS_OF_CORP }, (_, i) => ({
      rcept_no: `20260301${String(i).padStart(6, '0')}`,
      corp_code: CORP,
      stock_code: '000001',
      rcept_dt: `202603${String((i % 28) + 1).padStart(2, '0')}`,
    }));
    const summarisedToday: FilingFixture[] = Array.from({ length: SUMMARISED_TODAY }, (_, i) => ({
      rcept_no: `${today}${String(900000 + i)}`,
      corp_code: String(10_000_001 + i),
      stock_code: String(100_001 + i),
      rcept_dt: today,
    }));
    await insertFilings(t.dataSource, [...ofCorp, ...summarisedToday]);
    await insertAnalyses(
      t.dataSource,
      summarisedToday.map((filing) => ({ rcept_no: filing.rcept_no })),
    );
    await t.dataSource.query(
      `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type)
       SELECT corp_code, 'Paging ' || corp_code, stock_code, 'Y' FROM unnest($1::text[], $2::text[]) AS s(corp_code, stock_code)`,
      [summarisedToday.map((filing) => filing.corp_code), summarisedToday.map((filing) => filing.stock_code)],
    );

    user = await createUser(t.dataSource);
    await t.dataSource.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name) VALUES ($1, $2, $3)', [user, CORP, 'Company']);
    await t.dataSource.query(
      `INSERT INTO push_deliveries (rcept_no, fcm_token, user_id, status, attempts, sent_at)
       SELECT rcept_no, 'paging-token', $1, 'SENT', 1, now() FROM unnest($2::text[]) AS r(rcept_no)`,
      [user, ofCorp.slice(0, 60).map((filing) => filing.rcept_no)],
    );
    await t.dataSource.query(
      `INSERT INTO recorded_push_messages (fcm_token, platform, title, body, data, outcome, recorded_at)
       SELECT 'paging-token-' || i, 'ios', 'Title', 'Body', '{}'::jsonb, 'sent', now() FROM generate_series(1, 210) AS i`,
    );
  });
  afterAll(() => t?.close());

  const ask = (route: Route, limit?: string) => {
    const query = limit === undefined ? route.query : { ...route.query, limit };
    const call = request(t.http).get(route.path).query(query);
    if (route.caller === 'user') return call.set('Authorization', bearerFor(t, user));
    if (route.caller === 'admin') return call.set('X-Admin-Key', ADMIN_KEY);
    return call;
  };

  describe.each(ROUTES.map((route) => [route.name, route] as const))('%s', (_name, route) => {
    it(`answers ${route.fallback} rows without a limit, and as many as asked within 1..${route.max}`, async () => {
      expect((await ask(route).expect(200)).body).toHaveLength(route.fallback);
      expect((await ask(route, '3').expect(200)).body).toHaveLength(3);
      expect((await ask(route, String(route.max)).expect(200)).body).toHaveLength(route.max);
    });

    it.each([
      ['0', 1],
      ['-1', 1],
      ['-500', 1],
      ['+2', 2],
      ['101', Math.min(101, route.max)],
      [String(route.max + 1), route.max],
      ['99999999999999999999', route.max],
    ])('clamps limit=%s to %d', async (limit, rows) => {
      expect((await ask(route, limit).expect(200)).body).toHaveLength(rows);
    });

    it.each(['abc', '2.5', '1e3', '0x10', '', ' 5'])('answers 400 VALIDATION_FAILED to limit=%p', async (limit) => {
      const res = await ask(route, limit).expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: 'limit must be an integer' });
    });

    it('answers 400 to a limit given twice', async () => {
      const res = await ask(route).query('limit=1&limit=2').expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: 'limit must be an integer' });
    });
  });

  it('stocks/search has no limit (the specification fixes it at 20 rows): one in its query is ignored', async () => {
    const res = await request(t.http).get('/api/v1/stocks/search').query({ query: 'Paging', limit: '1' }).expect(200);
    expect(res.body).toHaveLength(20);
  });

  describe('numbers that are not limits are refused outside their range', () => {
    const admin = (path: string, query: Record<string, string>) => request(t.http).post(path).query(query).set('X-Admin-Key', ADMIN_KEY);
    const dates = { beginDate: '20261120', endDate: '20261121' };

    it.each([
      [{ pageNo: '0' }, /pageNo must not be less than 1/],
      [{ pageNo: 'abc' }, /pageNo/],
      [{ pageCount: '0' }, /pageCount must not be less than 1/],
      [{ pageCount: '101' }, /pageCount must not be greater than 100/],
      [{ pageCount: '2.5' }, /pageCount must be an integer/],
    ])('admin fetch with %j: 400', async (query, message) => {
      const res = await admin('/api/v1/admin/disclosures/fetch', { ...dates, ...query }).expect(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.message).toMatch(message);
    });

    it.each([
      [{ delayMs: '-1' }, /delayMs must not be less than 0/],
      [{ delayMs: '60001' }, /delayMs must not be greater than 60000/],
      [{ delayMs: 'soon' }, /delayMs/],
    ])('backfill with %j: 400', async (query, message) => {
      const res = await admin('/api/v1/admin/backfill', { fromDate: '20261101', toDate: '20261102', ...query }).expect(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.message).toMatch(message);
    });
  });
});
