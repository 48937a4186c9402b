import request from 'supertest';
import { bearerFor, createUser, type FilingFixture, insertAnalyses, insertFilings } from '../support/fixtures';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const WATCHED = ['30000001', '30000002'];
const UNWATCHED = '30000003';

interface FeedItem {
  rcept_no: string;
  corp_code: string;
  summary?: string;
  report_type: string;
  dart_url: string;
}

describe('GET /api/v1/watchlist/disclosures: one feed of everything followed', () => {
  let t: TestApp;
  let alice: number;
  let bob: number;
  /** Every filing of the watched companies, in the specification's order (computed here, not by the service). */
  let expected: FilingFixture[];

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
    const filings: FilingFixture[] = [];
    const base = Date.parse('2026-11-20T00:00:00Z');
    let serial = 0;
    for (let day = 18; day <= 22; day++) {
      for (const corp of [...WATCHED, UNWATCHED]) {
        for (let i = 0; i < 7; i++) {
          serial += 1;
          filings.push({
            rcept_no: `202611${day}${String(serial).padStart(6, '0')}`,
            corp_code: corp,
            report_name: i % 3 === 0 ? '주요사항보고서(유상증자결정)' : '단일판매ㆍ공급계약체결',
            // Creation times deliberately out of receipt-number order within a day.
            created_at: new Date(base + day * 3_600_000 + ((i * 7919) % 13) * 1000),
          });
        }
      }
    }
    await insertFilings(t.dataSource, filings);
    await insertAnalyses(
      t.dataSource,
      filings.filter((_, i) => i % 2 === 0).map((filing) => ({ rcept_no: filing.rcept_no, one_liner: `summary of ${filing.rcept_no}` })),
    );
    await t.dataSource.query(
      `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type) SELECT c, 'company ' || c, right(c, 6), 'Y' FROM unnest($1::text[]) AS x(c)`,
      [[...WATCHED, UNWATCHED]],
    );
    alice = await createUser(t.dataSource);
    bob = await createUser(t.dataSource);
    await t.dataSource.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name) SELECT $1, c, c FROM unnest($2::text[]) AS x(c)', [
      alice,
      WATCHED,
    ]);
    await t.dataSource.query("INSERT INTO watch_stocks (user_id, corp_code, corp_name) VALUES ($1, $2, 'x')", [bob, UNWATCHED]);
    expected = filings
      .filter((filing) => WATCHED.includes(filing.corp_code))
      .sort(
        (a, b) =>
          (b.rcept_dt ?? b.rcept_no.slice(0, 8)).localeCompare(a.rcept_dt ?? a.rcept_no.slice(0, 8)) ||
          b.created_at!.getTime() - a.created_at!.getTime() ||
          b.rcept_no.localeCompare(a.rcept_no),
      );
  });
  afterAll(() => t?.close());

  const feed = (userId: number, query = '') =>
    request(t.http).get(`/api/v1/watchlist/disclosures${query}`).set('Authorization', bearerFor(t, userId));

  it('lists the watched companies only, newest first, 20 by default, with their summaries and the Disclosure fields', async () => {
    const response = await feed(alice);
    expect(response.status).toBe(200);
    const items = response.body as FeedItem[];
    expect(items.map((item) => item.rcept_no)).toEqual(expected.slice(0, 20).map((filing) => filing.rcept_no));
    for (const item of items) {
      const index = Number(item.rcept_no.slice(8)) - 1;
      if (index % 2 === 0) expect(item.summary).toBe(`summary of ${item.rcept_no}`);
      else expect(item).not.toHaveProperty('summary');
      expect(item.dart_url).toBe(`https://dart.fss.or.kr/dsaf001/main.do?rcpNo=${item.rcept_no}`);
      expect(['major_event', 'exchange']).toContain(item.report_type);
    }
  });

  it('pages by cursor through every filing exactly once, in order, at most 50 a page', async () => {
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = (await feed(alice, `?limit=100${before ? `&before=${before}` : ''}`).expect(200)).body as FeedItem[];
      expect(page.length).toBeLessThanOrEqual(50);
      if (page.length === 0) break;
      seen.push(...page.map((item) => item.rcept_no));
      before = page.at(-1)!.rcept_no;
    }
    expect(seen).toEqual(expected.map((filing) => filing.rcept_no));
    const small = (await feed(alice, `?limit=7&before=${expected[3].rcept_no}`).expect(200)).body as FeedItem[];
    expect(small.map((item) => item.rcept_no)).toEqual(expected.slice(4, 11).map((filing) => filing.rcept_no));
  });

  it("keeps each user's feed to their own watchlist; an empty watchlist is an empty feed", async () => {
    const bobs = (await feed(bob, '?limit=50').expect(200)).body as FeedItem[];
    expect(bobs.length).toBe(35);
    expect(bobs.every((item) => item.corp_code === UNWATCHED)).toBe(true);
    const nobody = await createUser(t.dataSource);
    expect((await feed(nobody).expect(200)).body).toEqual([]);
  });

  it('refuses a bad cursor or limit with 400, and a caller without a token with 401', async () => {
    for (const query of ['?before=123', '?before=20991231000001', '?limit=ten']) {
      const response = await feed(alice, query);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
    expect((await request(t.http).get('/api/v1/watchlist/disclosures')).status).toBe(401);
  });
});
