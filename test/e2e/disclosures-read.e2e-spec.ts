import request from 'supertest';
import { DisclosuresService } from '../../src/disclosures/disclosures.service';
import { type AnalysisStatus, insertAnalyses, insertFilings } from '../support/fixtures';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

interface Seed {
  rcept_no: string;
  corp_code: string;
  rcept_dt: string;
  /** Seconds after a fixed base; ties on date are broken by it, then by rcept_no. */
  created: number;
  analysis?: { status: AnalysisStatus; one_liner: string | null };
}

const CORP_A = '00000001';
const CORP_B = '00000002';
const CREATED_BASE_MS = Date.UTC(2026, 0, 1);

/**
 * Reads against filings written straight into the database, so the expected
 * order (date, creation time, receipt number, all descending) is known exactly.
 */
describe('reading filings', () => {
  let t: TestApp;
  const seeds: Seed[] = [];

  const add = (seed: Seed) => seeds.push(seed);
  const rcept = (date: string, seq: number) => `${date}${String(seq).padStart(6, '0')}`;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
    // Company A: 260 filings over 26 days, ten a day.
    for (let day = 1; day <= 26; day++) {
      const date = `202610${String(day).padStart(2, '0')}`;
      for (let seq = 1; seq <= 10; seq++) {
        const n = day * 100 + seq;
        add({
          rcept_no: rcept(date, seq),
          corp_code: CORP_A,
          rcept_dt: date,
          created: n,
          analysis:
            n % 3 === 0
              ? { status: 'COMPLETED', one_liner: `요약 ${n}` }
              : n % 3 === 1
                ? { status: 'COMPLETED', one_liner: '' }
                : { status: 'PENDING', one_liner: null },
        });
      }
    }
    // Ties on 20261120: creation time decides first, then the receipt number.
    add({
      rcept_no: rcept('20261120', 1),
      corp_code: CORP_B,
      rcept_dt: '20261120',
      created: 9000,
      analysis: { status: 'COMPLETED', one_liner: '먼저 만든 것' },
    });
    add({
      rcept_no: rcept('20261120', 2),
      corp_code: CORP_B,
      rcept_dt: '20261120',
      created: 8000,
      analysis: { status: 'UNAVAILABLE', one_liner: null },
    });
    add({ rcept_no: rcept('20261120', 3), corp_code: CORP_B, rcept_dt: '20261120', created: 9000 });
    add({
      rcept_no: rcept('20261119', 9),
      corp_code: CORP_B,
      rcept_dt: '20261119',
      created: 9999,
      analysis: { status: 'COMPLETED', one_liner: '하루 전' },
    });

    await insertFilings(
      t.dataSource,
      seeds.map((s) => ({
        rcept_no: s.rcept_no,
        corp_code: s.corp_code,
        corp_name: `Company ${s.corp_code}`,
        stock_code: '005930',
        report_name: `Report ${s.rcept_no}`,
        rcept_dt: s.rcept_dt,
        submitter: 'Filer',
        created_at: new Date(CREATED_BASE_MS + s.created * 1000),
      })),
    );
    await insertAnalyses(
      t.dataSource,
      seeds.flatMap((s) => (s.analysis ? [{ rcept_no: s.rcept_no, ...s.analysis }] : [])),
    );
  });
  afterAll(() => t?.close());

  /** The specification's order: rcept_dt, creation time, rcept_no, all descending. */
  const ordered = (rows: Seed[]) =>
    [...rows].sort((a, b) => b.rcept_dt.localeCompare(a.rcept_dt) || b.created - a.created || b.rcept_no.localeCompare(a.rcept_no));
  const summaryOf = (seed: Seed) =>
    seed.analysis?.status === 'COMPLETED' && seed.analysis.one_liner ? seed.analysis.one_liner : undefined;
  const numbers = (body: { rcept_no: string }[]) => body.map((row) => row.rcept_no);
  const get = (path: string, query: Record<string, string | number> = {}) => request(t.http).get(path).query(query);

  describe('GET /api/v1/disclosures/recent', () => {
    it('lists the newest 10 by default, ties broken by creation time then receipt number', async () => {
      const res = await get('/api/v1/disclosures/recent').expect(200);
      expect(numbers(res.body)).toEqual(numbers(ordered(seeds).slice(0, 10)));
      expect(numbers(res.body).slice(0, 4)).toEqual(['20261120000003', '20261120000001', '20261120000002', '20261119000009']);
    });

    it('shows the summary only for completed analyses with a one-liner', async () => {
      const res = await get('/api/v1/disclosures/recent', { limit: 50 }).expect(200);
      for (const row of res.body) {
        const seed = seeds.find((s) => s.rcept_no === row.rcept_no)!;
        if (summaryOf(seed)) expect(row.summary).toBe(summaryOf(seed));
        else expect(row).not.toHaveProperty('summary');
      }
    });

    it.each([
      [50, 50],
      [51, 50],
      [1000, 50],
      [0, 1],
      [-3, 1],
      [7, 7],
    ])('clamps limit=%d to %d', async (limit, expected) => {
      const res = await get('/api/v1/disclosures/recent', { limit }).expect(200);
      expect(res.body).toHaveLength(expected);
    });

    it('answers 400 for a limit that is not an integer', async () => {
      await get('/api/v1/disclosures/recent', { limit: 'ten' }).expect(400);
      await get('/api/v1/disclosures/recent', { limit: '2.5' }).expect(400);
    });
  });

  describe('GET /api/v1/disclosures/{rceptNo}', () => {
    it('answers the metadata and nothing more', async () => {
      const res = await get('/api/v1/disclosures/20261120000001').expect(200);
      expect(res.body).toEqual({
        rcept_no: '20261120000001',
        corp_name: `Company ${CORP_B}`,
        corp_code: CORP_B,
        stock_code: '005930',
        report_name: 'Report 20261120000001',
        rcept_dt: '20261120',
        submitter: 'Filer',
        summary: '먼저 만든 것',
        report_type: 'other',
        is_correction: false,
        dart_url: 'https://dart.fss.or.kr/dsaf001/main.do?rcpNo=20261120000001',
      });
      const withoutSummary = await get('/api/v1/disclosures/20261120000002').expect(200);
      expect(withoutSummary.body).not.toHaveProperty('summary');
    });

    it('answers 404 for an unknown filing and 400 unless 14 digits', async () => {
      expect((await get('/api/v1/disclosures/20991231000001').expect(404)).body.code).toBe('NOT_FOUND');
      for (const bad of ['2026112000000', '202611200000011', '2026112000000x']) {
        expect((await get(`/api/v1/disclosures/${bad}`).expect(400)).body.message).toMatch(/14 digits/);
      }
    });
  });

  describe('GET /api/v1/disclosures', () => {
    it('answers 400 without a filter', async () => {
      const res = await get('/api/v1/disclosures').expect(400);
      expect(res.body.message).toMatch(/corpCode|hasSummary/);
      await get('/api/v1/disclosures', { hasSummary: 'false' }).expect(400);
      await get('/api/v1/disclosures', { limit: 5 }).expect(400);
    });

    it("lists a company's filings, 50 by default and at most 200", async () => {
      const ofA = ordered(seeds.filter((s) => s.corp_code === CORP_A));
      expect(numbers((await get('/api/v1/disclosures', { corpCode: CORP_A }).expect(200)).body)).toEqual(numbers(ofA.slice(0, 50)));
      expect((await get('/api/v1/disclosures', { corpCode: CORP_A, limit: 500 }).expect(200)).body).toHaveLength(200);
      expect(numbers((await get('/api/v1/disclosures', { corpCode: CORP_B }).expect(200)).body)).toEqual(
        numbers(ordered(seeds.filter((s) => s.corp_code === CORP_B))),
      );
      expect((await get('/api/v1/disclosures', { corpCode: '99999999' }).expect(200)).body).toEqual([]);
      await get('/api/v1/disclosures', { corpCode: '123' }).expect(400);
    });

    it('lists a date range, both ends included', async () => {
      const inRange = ordered(seeds.filter((s) => s.rcept_dt >= '20261010' && s.rcept_dt <= '20261012'));
      const res = await get('/api/v1/disclosures', { beginDate: '20261010', endDate: '20261012', limit: 200 }).expect(200);
      expect(numbers(res.body)).toEqual(numbers(inRange));
    });

    it.each([
      [{ beginDate: '20261010' }, /go together/],
      [{ endDate: '20261010' }, /go together/],
      [{ beginDate: '20261340', endDate: '20261341' }, /calendar date/],
      [{ beginDate: '20261012', endDate: '20261010' }, /must not be before/],
    ])('answers 400 for the date range %j', async (query, message) => {
      expect((await get('/api/v1/disclosures', query).expect(400)).body.message).toMatch(message);
    });

    it('with hasSummary=true lists only summarised filings, summary always present, at most 20', async () => {
      const summarised = ordered(seeds.filter((s) => summaryOf(s)));
      const res = await get('/api/v1/disclosures', { hasSummary: 'true' }).expect(200);
      expect(numbers(res.body)).toEqual(numbers(summarised.slice(0, 20)));
      expect(res.body.every((row: { summary?: string }) => typeof row.summary === 'string' && row.summary !== '')).toBe(true);
      expect((await get('/api/v1/disclosures', { hasSummary: 'true', limit: 100 }).expect(200)).body).toHaveLength(20);
      expect((await get('/api/v1/disclosures', { hasSummary: 'true', limit: 3 }).expect(200)).body).toHaveLength(3);
    });

    it('combines hasSummary=true with corpCode', async () => {
      const res = await get('/api/v1/disclosures', { hasSummary: 'true', corpCode: CORP_B }).expect(200);
      expect(numbers(res.body)).toEqual(['20261120000001', '20261119000009']);
    });
  });

  describe('HTTP cache', () => {
    it('marks cached routes with their time to live', async () => {
      expect((await get('/api/v1/disclosures/recent', { limit: 2 })).headers['cache-control']).toBe('public, max-age=30');
      expect((await get('/api/v1/disclosures/20261120000001')).headers['cache-control']).toBe('public, max-age=300');
      expect((await get('/api/v1/disclosures', { corpCode: CORP_B })).headers['cache-control']).toBe('public, max-age=60');
    });

    it('serves the stored answer until its time to live has passed', async () => {
      const first = await get('/api/v1/disclosures/recent', { limit: 1 }).expect(200);
      await insertFilings(t.dataSource, [{ rcept_no: '20261231000001', corp_code: CORP_B, corp_name: 'New', report_name: 'New report' }]);
      t.clock.advance(29_000);
      expect((await get('/api/v1/disclosures/recent', { limit: 1 }).expect(200)).body).toEqual(first.body);
      t.clock.advance(2_000);
      expect(numbers((await get('/api/v1/disclosures/recent', { limit: 1 }).expect(200)).body)).toEqual(['20261231000001']);
    });

    it('caches a 404 for 5 seconds', async () => {
      await get('/api/v1/disclosures/20261231000002').expect(404);
      await insertFilings(t.dataSource, [{ rcept_no: '20261231000002', corp_code: CORP_B, corp_name: 'New', report_name: 'Late' }]);
      await get('/api/v1/disclosures/20261231000002').expect(404);
      t.clock.advance(5_001);
      await get('/api/v1/disclosures/20261231000002').expect(200);
    });

    it('collapses concurrent identical requests into one query', async () => {
      const service = t.app.get(DisclosuresService);
      const list = jest.spyOn(service, 'list');
      try {
        const answers = await Promise.all(Array.from({ length: 10 }, () => get('/api/v1/disclosures', { corpCode: CORP_A, limit: 123 })));
        expect(answers.map((res) => res.status)).toEqual(Array(10).fill(200));
        expect(new Set(answers.map((res) => JSON.stringify(res.body))).size).toBe(1);
        expect(list).toHaveBeenCalledTimes(1);
      } finally {
        list.mockRestore();
      }
    });
  });
});
