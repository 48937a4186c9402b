import request from 'supertest';
import { insertAnalyses, insertFilings } from '../support/fixtures';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/** 23:59 on 2026-11-20 in Korea (UTC+9). */
const AT_2359_KST = new Date('2026-11-20T14:59:00Z');
const AT_0000_KST = new Date('2026-11-20T15:00:00Z');

describe('HTTP cache on the real routes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
    // One summarised filing on each side of midnight KST.
    await insertFilings(t.dataSource, [
      { rcept_no: '20261120000001', corp_code: '40000001', corp_name: '오늘상사', stock_code: '400001', report_name: 'report' },
      { rcept_no: '20261121000001', corp_code: '40000002', corp_name: '내일상사', stock_code: '400002', report_name: 'report' },
    ]);
    await insertAnalyses(t.dataSource, [
      { rcept_no: '20261120000001', one_liner: '요약' },
      { rcept_no: '20261121000001', one_liner: '요약' },
    ]);
  });
  afterAll(() => t?.close());

  const corpNames = async (path: string) =>
    (await request(t.http).get(path).expect(200)).body.map((stock: { corp_name: string }) => stock.corp_name);

  it('does not serve a stocks/active list cached at 23:59 KST at 00:00 KST, though its 5 minutes are not over', async () => {
    t.clock.set(AT_2359_KST);
    expect(await corpNames('/api/v1/stocks/active')).toEqual(['오늘상사']);

    t.clock.set(AT_0000_KST);
    expect(await corpNames('/api/v1/stocks/active')).toEqual(['내일상사']);
  });

  it('caches an unexpected 500 for 5 seconds as the sanitised body, then asks the handler again', async () => {
    t.clock.set(AT_0000_KST);
    const path = '/api/v1/stocks/active?limit=5';
    // A statement that fails in a way no client caused: the filter answers 500.
    await t.dataSource.query('ALTER TABLE analyses RENAME TO analyses_hidden');
    let first: request.Response;
    try {
      first = await request(t.http).get(path).expect(500);
    } finally {
      await t.dataSource.query('ALTER TABLE analyses_hidden RENAME TO analyses');
    }
    expect(first.body).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: 'Internal server error',
      code: 'INTERNAL_ERROR',
    });
    expect(first.headers['cache-control']).toBe('public, max-age=5');

    t.clock.set(new Date(AT_0000_KST.getTime() + 4_999));
    const replayed = await request(t.http).get(path).expect(500);
    expect(replayed.body).toEqual(first.body);
    expect(JSON.stringify(replayed.body)).not.toMatch(/analyses|relation|at .*\.ts/);

    t.clock.set(new Date(AT_0000_KST.getTime() + 5_000));
    expect(await corpNames(path)).toEqual(['내일상사']);
  });
});
