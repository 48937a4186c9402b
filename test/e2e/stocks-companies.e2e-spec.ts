import request from 'supertest';
import { UPSTREAM_DOWN_RETRY_AFTER_SECONDS, UPSTREAM_RETRY_AFTER_SECONDS } from '../../src/companies/companies.service';
import { DART_BUDGET_TIME } from '../../src/upstream/dart/dart.module';
import { FakeClock } from '../support/fake-clock';
import { insertAnalyses, insertFilings } from '../support/fixtures';
import { eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';

const HOUR_MS = 60 * 60 * 1000;
/** 23:50 on 2026-11-20 in Korea (UTC+9). */
const BEFORE_MIDNIGHT_KST = new Date('2026-11-20T14:50:00Z');

describe('stocks and companies', () => {
  let t: SandboxedApp;

  beforeAll(async () => {
    t = await startSandboxedApp({ start: BEFORE_MIDNIGHT_KST });
  });
  afterAll(() => t?.close());

  const get = (path: string, query: Record<string, string | number> = {}) => request(t.http).get(path).query(query);

  describe('GET /api/v1/stocks/search', () => {
    beforeAll(async () => {
      const stocks: [string, string, string, 'Y' | 'K'][] = [
        ['10000001', 'Alpha Tech', 'A00001', 'Y'],
        ['10000002', 'ALPHA TECH', 'A00002', 'K'],
        ['10000003', 'alphabet soup', 'A00003', 'K'],
        ['10000004', '100%바이오', '100100', 'K'],
        ['10000005', '100바이오', '100200', 'K'],
        ['10000006', 'A_B테크', '200100', 'Y'],
        ['10000007', 'AXB테크', '200200', 'Y'],
        ['10000008', '삼성전자', '005930', 'Y'],
        ['10000009', '삼성전기', '009150', 'Y'],
        ['10000010', '전자랜드', '005931', 'K'],
        ['10000011', 'back\\slash', '300100', 'K'],
      ];
      for (let i = 0; i < 30; i++)
        stocks.push([`2000${String(i).padStart(4, '0')}`, `반도체${String(i).padStart(2, '0')}`, `9${String(i).padStart(5, '0')}`, 'K']);
      await t.dataSource.query(
        `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
        [stocks.map((s) => s[0]), stocks.map((s) => s[1]), stocks.map((s) => s[2]), stocks.map((s) => s[3])],
      );
    });

    const names = async (query: string) =>
      ((await get('/api/v1/stocks/search', { query }).expect(200)).body as { corp_name: string }[]).map((row) => row.corp_name);

    it('matches part of the name in any case, sorted by name', async () => {
      expect(await names('alpha tech')).toEqual(['ALPHA TECH', 'Alpha Tech']);
      expect(await names('ALPHA')).toEqual(['ALPHA TECH', 'Alpha Tech', 'alphabet soup']);
    });

    it('matches Korean names by any part', async () => {
      expect(await names('삼성')).toEqual(['삼성전기', '삼성전자']);
      expect(await names('전자')).toEqual(['삼성전자', '전자랜드']);
    });

    it('takes % and _ and \\ literally', async () => {
      expect(await names('%')).toEqual(['100%바이오']);
      expect(await names('100%')).toEqual(['100%바이오']);
      expect(await names('_')).toEqual(['A_B테크']);
      expect(await names('A_B')).toEqual(['A_B테크']);
      expect(await names('\\')).toEqual(['back\\slash']);
    });

    it('matches a stock code exactly, never partly', async () => {
      expect(await names('005930')).toEqual(['삼성전자']);
      expect(await names('00593')).toEqual([]);
      expect(await names('a00001')).toEqual(['Alpha Tech']);
    });

    it('answers every field, at most 20 rows, and [] for an empty query', async () => {
      const res = await get('/api/v1/stocks/search', { query: '삼성전자' }).expect(200);
      expect(res.body).toEqual([{ corp_code: '10000008', corp_name: '삼성전자', stock_code: '005930', market_type: 'Y' }]);
      expect(await names('반도체')).toHaveLength(20);
      expect((await names('반도체'))[0]).toBe('반도체00');
      expect(await names('')).toEqual([]);
      expect(await names('   ')).toEqual([]);
      expect((await get('/api/v1/stocks/search').expect(200)).body).toEqual([]);
      await get('/api/v1/stocks/search', { query: 'x'.repeat(101) }).expect(400);
    });

    it('is cached for a minute over HTTP and for ten minutes in the handler', async () => {
      expect((await get('/api/v1/stocks/search', { query: '삼성' })).headers['cache-control']).toBe('public, max-age=60');
      await t.dataSource.query(
        "INSERT INTO stocks (corp_code, corp_name, stock_code, market_type) VALUES ('10000099', '삼성바이오', '207940', 'Y')",
      );
      t.clock.advance(61_000);
      expect(await names('삼성')).toEqual(['삼성전기', '삼성전자']);
      t.clock.advance(9 * 60_000);
      expect(await names('삼성')).toEqual(['삼성바이오', '삼성전기', '삼성전자']);
      t.clock.set(BEFORE_MIDNIGHT_KST);
    });
  });

  describe('GET /api/v1/stocks/active', () => {
    const today = '20261120';
    const tomorrow = '20261121';

    beforeAll(async () => {
      // [rcept_no, corp_code, name at filing, stock code, date, summary state]
      const filings: [string, string, string, string, string, 'done' | 'empty' | 'pending'][] = [
        [`${today}000001`, '30000001', '가나전자', '111111', today, 'done'],
        [`${today}000005`, '30000001', '가나전자(구)', '111111', today, 'done'],
        [`${today}000009`, '30000001', '가나전자', '111111', today, 'pending'],
        [`${today}000002`, '30000002', '다라화학', '222222', today, 'done'],
        [`${today}000003`, '30000003', '마바제약', '333333', today, 'empty'],
        [`${today}000004`, '30000004', '비상장사', '', today, 'done'],
        ['20261119000007', '30000005', '어제상사', '555555', '20261119', 'done'],
        [`${tomorrow}000001`, '30000006', '내일바이오', '666666', tomorrow, 'done'],
      ];
      await insertFilings(
        t.dataSource,
        filings.map(([rcept_no, corp_code, corp_name, stock_code, rcept_dt]) => ({
          rcept_no,
          corp_code,
          corp_name,
          stock_code,
          report_name: 'report',
          rcept_dt,
        })),
      );
      await insertAnalyses(
        t.dataSource,
        filings.map(([rcept_no, , , , , state]) =>
          state === 'pending' ? { rcept_no, status: 'PENDING' } : { rcept_no, one_liner: state === 'done' ? '요약' : '' },
        ),
      );
    });

    it("lists today's companies with a summary in Korea time, one each from its latest summarised filing", async () => {
      const res = await get('/api/v1/stocks/active').expect(200);
      expect(res.body).toEqual([
        { corp_code: '30000001', corp_name: '가나전자(구)', stock_code: '111111' },
        { corp_code: '30000002', corp_name: '다라화학', stock_code: '222222' },
      ]);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
    });

    it('moves to the next day at midnight Korea time', async () => {
      t.clock.advance(20 * 60 * 1000); // 00:10 KST: past midnight, and past the 5-minute cache
      const res = await get('/api/v1/stocks/active').expect(200);
      expect(res.body).toEqual([{ corp_code: '30000006', corp_name: '내일바이오', stock_code: '666666' }]);
      t.clock.set(BEFORE_MIDNIGHT_KST);
    });

    it.each([
      [0, 1],
      [1, 1],
      [100, 2],
    ])('clamps limit=%d', async (limit, expected) => {
      const res = await get('/api/v1/stocks/active', { limit }).expect(200);
      expect(res.body).toHaveLength(expected);
    });

    it('answers 400 for a limit that is not a number', async () => {
      await get('/api/v1/stocks/active', { limit: 'many' }).expect(400);
    });
  });

  describe('GET /api/v1/companies/{corpCode}', () => {
    const companyRequests = () => t.sandbox.control.requests.filter((r) => r.path.endsWith('company.json')).length;
    const DAY_MS = 24 * HOUR_MS;
    /** In the corp-code list, but unknown to company.json. */
    const LISTED_BUT_GONE = '88888888';

    beforeAll(async () => {
      // What the stock sync stores from corpCode.xml: the only codes a public read may look up upstream.
      const codes = [...t.sandbox.control.companies().map((company) => company.corpCode), LISTED_BUT_GONE];
      await t.dataSource.query(
        `INSERT INTO corp_codes (corp_code, corp_name) SELECT code, 'name' FROM unnest($1::text[]) AS code ON CONFLICT DO NOTHING`,
        [codes],
      );
    });

    it('reads a company from the disclosure system once, then from the database until it is stale', async () => {
      const listed = t.sandbox.control.companiesIn('Y')[0];
      const before = companyRequests();
      const first = await get(`/api/v1/companies/${listed.corpCode}`).expect(200);
      expect(first.body).toMatchObject({
        corp_code: listed.corpCode,
        corp_name: listed.corpName,
        stock_code: listed.stockCode,
        corp_cls: 'Y',
      });
      expect(first.headers['cache-control']).toBe('public, max-age=600');
      expect(companyRequests()).toBe(before + 1);

      t.clock.advance(11 * 60 * 1000); // past the HTTP cache, long before the company goes stale
      expect((await get(`/api/v1/companies/${listed.corpCode}`).expect(200)).body).toEqual(first.body);
      expect(companyRequests()).toBe(before + 1);

      t.sandbox.control.renameCompany(listed.corpCode, '새 이름');
      t.clock.advance(8 * DAY_MS);
      expect((await get(`/api/v1/companies/${listed.corpCode}`).expect(200)).body.corp_name).toBe('새 이름');
      expect(companyRequests()).toBe(before + 2);
      t.clock.set(BEFORE_MIDNIGHT_KST);
    });

    it('serves the stored copy when a refresh fails, and 503 when there is none', async () => {
      const [stored, never] = t.sandbox.control.companiesIn('K');
      await get(`/api/v1/companies/${stored.corpCode}`).expect(200);
      t.clock.advance(8 * DAY_MS);
      t.sandbox.control.setKeyStatus('900');
      try {
        expect((await get(`/api/v1/companies/${stored.corpCode}`).expect(200)).body.corp_code).toBe(stored.corpCode);
        const res = await get(`/api/v1/companies/${never.corpCode}`).expect(503);
        expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
        expect(res.headers['retry-after']).toBe(String(UPSTREAM_RETRY_AFTER_SECONDS));
      } finally {
        t.sandbox.control.setKeyStatus(null);
        t.clock.set(BEFORE_MIDNIGHT_KST);
      }
    });

    it('answers 404 for a code outside the corp-code list without asking upstream, and for one upstream does not know', async () => {
      const before = companyRequests();
      expect((await get('/api/v1/companies/99999999').expect(404)).body).toMatchObject({ statusCode: 404, code: 'COMPANY_NOT_FOUND' });
      expect(companyRequests()).toBe(before);
      expect((await get(`/api/v1/companies/${LISTED_BUT_GONE}`).expect(404)).body.code).toBe('COMPANY_NOT_FOUND');
      expect(companyRequests()).toBe(before + 1);
    });

    it.each(['1234', 'abcdefgh', '123456789', '1234567a', '%20%2012345678'])(
      'answers 400 VALIDATION_FAILED for the malformed code %s',
      async (code) => {
        const before = companyRequests();
        expect((await get(`/api/v1/companies/${code}`).expect(400)).body.code).toBe('VALIDATION_FAILED');
        expect(companyRequests()).toBe(before);
      },
    );
  });

  describe('GET /api/v1/companies/{corpCode} while the disclosure system is slow or down', () => {
    const DEADLINE_MS = 3_000;
    /** The clock of the disclosure-system client (its budget, retries and the read's deadline), moved by hand. */
    const time = new FakeClock();
    let slow: SandboxedApp;

    beforeAll(async () => {
      slow = await startSandboxedApp({
        start: BEFORE_MIDNIGHT_KST,
        app: {
          overrides: [{ provide: DART_BUDGET_TIME, useValue: time }],
          env: {
            DART_PUBLIC_READ_DEADLINE_MS: String(DEADLINE_MS),
            // What production has: a job may wait 20 s for an answer, four times.
            DART_TIMEOUT_MS: '20000',
            DART_MAX_ATTEMPTS: '4',
            DART_RETRY_BASE_MS: '2000',
          },
        },
      });
      const codes = slow.sandbox.control.companies().map((company) => company.corpCode);
      await slow.dataSource.query(`INSERT INTO corp_codes (corp_code, corp_name) SELECT code, 'name' FROM unnest($1::text[]) AS code`, [
        codes,
      ]);
    });
    afterAll(() => slow?.close());

    const companyRequests = () => slow.sandbox.control.requests.filter((r) => r.path.endsWith('company.json')).length;
    /** Sends the read, and resolves once its request to the disclosure system arrived (wrapped: an async function would wait for the answer). */
    async function readWhileUpstreamHangs(corpCode: string): Promise<{ answer: Promise<request.Response> }> {
      const before = companyRequests();
      slow.sandbox.control.failNext(1, 'hang', 'company.json');
      const answer = request(slow.http)
        .get(`/api/v1/companies/${corpCode}`)
        .then((res) => res);
      await eventually(() => companyRequests() === before + 1);
      return { answer };
    }

    it(`answers 503 UPSTREAM_UNAVAILABLE with Retry-After once the deadline passes, without a retry, when nothing is stored`, async () => {
      const [company] = slow.sandbox.control.companiesIn('Y');
      const before = companyRequests();
      const { answer } = await readWhileUpstreamHangs(company.corpCode);
      await time.elapse(DEADLINE_MS);
      const res = await answer;

      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ statusCode: 503, code: 'UPSTREAM_UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe(String(UPSTREAM_RETRY_AFTER_SECONDS));
      // Without the deadline it would have waited 20 s, then tried three more times.
      expect(companyRequests()).toBe(before + 1);
    });

    it('serves the stored copy when a refresh hangs past the deadline', async () => {
      const [, company] = slow.sandbox.control.companiesIn('Y');
      const stored = (await request(slow.http).get(`/api/v1/companies/${company.corpCode}`).expect(200)).body;
      slow.clock.advance(8 * 24 * HOUR_MS); // stale: the read refreshes it

      const { answer } = await readWhileUpstreamHangs(company.corpCode);
      await time.elapse(DEADLINE_MS);
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.body).toEqual(stored);
      slow.clock.set(BEFORE_MIDNIGHT_KST);
    });

    it('answers maintenance (800) with a longer Retry-After, as soon as no further attempt can end within the deadline', async () => {
      const [company] = slow.sandbox.control.companiesIn('K');
      const before = companyRequests();
      const startedAt = time.monotonicMs();
      slow.sandbox.control.setKeyStatus('800');
      try {
        const answer = request(slow.http)
          .get(`/api/v1/companies/${company.corpCode}`)
          .then((res) => res);
        // The first 800 is answered: the client waits about 2 s for a second attempt (the deadline, the
        // budget line's own bound and that wait are the clock's sleepers)…
        await eventually(() => companyRequests() === before + 1 && time.pendingSleeps() === 3);
        await time.elapse(2_400);
        // …whose 800 leaves less time than the next wait (about 4 s): answered now, not at the deadline.
        const res = await answer;
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
        expect(res.headers['retry-after']).toBe(String(UPSTREAM_DOWN_RETRY_AFTER_SECONDS));
        expect(companyRequests()).toBe(before + 2);
        expect(time.monotonicMs() - startedAt).toBeLessThan(DEADLINE_MS);
      } finally {
        slow.sandbox.control.setKeyStatus(null);
      }
    });

    it('answers the next read as usual once the disclosure system answers again', async () => {
      const [company] = slow.sandbox.control.companiesIn('K');
      // Past the HTTP cache's hold on the failure.
      slow.clock.advance(60_000);
      expect((await request(slow.http).get(`/api/v1/companies/${company.corpCode}`).expect(200)).body.corp_code).toBe(company.corpCode);
    });
  });
});
