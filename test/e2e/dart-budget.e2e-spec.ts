import request from 'supertest';
import { AnalysisSchedulerService } from '../../src/analysis/analysis-scheduler.service';
import { BackfillService } from '../../src/disclosures/backfill.service';
import { DisclosureIngestService } from '../../src/disclosures/disclosure-ingest.service';
import { DisclosureMonitorService } from '../../src/disclosures/disclosure-monitor.service';
import { StockSyncService } from '../../src/stocks/stock-sync.service';
import { MAX_WAITING, PUBLIC_READ_MAX_WAIT_MS } from '../../src/upstream/dart/dart-budget';
import { DartClient } from '../../src/upstream/dart/dart-client';
import { DART_BUDGET_TIME } from '../../src/upstream/dart/dart.module';
import { DartError, type DartFiling } from '../../src/upstream/dart/dart.types';
import { FakeClock } from '../support/fake-clock';
import { ADMIN_KEY, eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';

const MINUTE = 60_000;
/** Friday 2026-11-20, 12:00 in Korea. */
const NOON_KST = new Date('2026-11-20T03:00:00Z');
/** The KST midnight that ends that day. */
const NEXT_KST_MIDNIGHT = new Date('2026-11-20T15:00:00Z');

/** Codes the stock sync would have stored from corpCode.xml: the only ones a public read may look up upstream. */
async function storeCorpCodes(t: SandboxedApp, codes: string[]): Promise<void> {
  await t.dataSource.query(
    `INSERT INTO corp_codes (corp_code, corp_name) SELECT code, 'name' FROM unnest($1::text[]) AS code ON CONFLICT DO NOTHING`,
    [codes],
  );
}

const requestsTo = (t: SandboxedApp, endpoint: string) => t.sandbox.control.requests.filter((r) => r.path.endsWith(endpoint));
const admin = (t: SandboxedApp, method: 'get' | 'post', path: string) =>
  request(t.http)[method](`/api/v1/admin/${path}`).set('X-Admin-Key', ADMIN_KEY);

describe('the disclosure-system budget', () => {
  describe('under contention (the per-minute budget on a virtual clock, one request a minute)', () => {
    const time = new FakeClock();
    let t: SandboxedApp;
    let dart: DartClient;
    let known: string[];

    beforeAll(async () => {
      t = await startSandboxedApp({
        start: NOON_KST,
        sandbox: { companyCount: 60, filingsPerBusinessDay: 0 },
        app: { env: { DART_REQUESTS_PER_MINUTE: '1' }, overrides: [{ provide: DART_BUDGET_TIME, useValue: time }] },
      });
      dart = t.app.get(DartClient);
      known = t.sandbox.control.companies().map((company) => company.corpCode);
      await storeCorpCodes(t, known);
    });
    afterAll(async () => {
      // Let whatever still waits for a slot run out, so shutdown does not wait on virtual time.
      await eventually(async () => {
        await time.elapse(MINUTE);
        return (await t.app.get(StockSyncService).status()).status !== 'running' && dart.budgetStatus().waiting === 0;
      }, 60_000);
      await t?.close();
    });

    /** Empties the window, then spends its one slot on a company read (which answers 200). */
    async function spendTheMinute(corpCode: string): Promise<void> {
      await time.elapse(MINUTE);
      await request(t.http).get(`/api/v1/companies/${corpCode}`).expect(200);
      expect(dart.budgetStatus()).toMatchObject({ usedLastMinute: 1, waiting: 0 });
    }

    it(`bounds the line at ${MAX_WAITING}: extra public reads get 503 UPSTREAM_BUSY at once, the rest after ${PUBLIC_READ_MAX_WAIT_MS} ms, all with Retry-After`, async () => {
      await spendTheMinute(known[0]);
      const companyCalls = requestsTo(t, 'company.json').length;
      const codes = Array.from({ length: MAX_WAITING + 20 }, (_, i) => `7${String(i).padStart(7, '0')}`);
      await storeCorpCodes(t, codes);

      const answers: request.Response[] = [];
      const reads = codes.map((code) =>
        request(t.http)
          .get(`/api/v1/companies/${code}`)
          .then((res) => void answers.push(res)),
      );
      // 20 are refused before the clock moves at all: the line is full.
      await eventually(async () => answers.length === 20 && dart.budgetStatus().waiting === MAX_WAITING);
      await time.elapse(PUBLIC_READ_MAX_WAIT_MS);
      await Promise.all(reads);

      expect(answers).toHaveLength(codes.length);
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ statusCode: 503, code: 'UPSTREAM_BUSY' });
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      expect(requestsTo(t, 'company.json')).toHaveLength(companyCalls);
      expect(dart.budgetStatus().waiting).toBe(0);
    });

    it('serves monitor, admin fetch, analysis document, backfill, stock sync in that order; the company read gives up with 503', async () => {
      // One filing with a PENDING analysis, already stored (so the monitor finds nothing new).
      const filing = t.sandbox.control.publishFiling();
      await t.app.get(DisclosureIngestService).saveNew([filing], 'fetch');
      await spendTheMinute(known[1]);
      const seen = t.sandbox.control.requests.length;
      const today = t.sandbox.control.today();

      // Queued from the least urgent to the most urgent.
      const read = request(t.http).get(`/api/v1/companies/${known[2]}`);
      const readDone = read.then((res) => res);
      await admin(t, 'post', 'stocks/sync').query({ mode: 'bootstrap' }).expect(202);
      await admin(t, 'post', 'backfill').query({ fromDate: '20261102', toDate: '20261106', delayMs: 0 }).expect(202);
      const scheduler = t.app.get(AnalysisSchedulerService);
      scheduler.resume();
      const fetch = admin(t, 'post', 'disclosures/fetch')
        .query({ beginDate: '20261119', endDate: '20261119' })
        .then((res) => res);
      const poll = t.app.get(DisclosureMonitorService).pollOnce();
      await eventually(async () => dart.budgetStatus().waiting === 6);
      expect(t.sandbox.control.requests).toHaveLength(seen);

      await time.elapse(PUBLIC_READ_MAX_WAIT_MS);
      const refused = await readDone;
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('UPSTREAM_BUSY');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      // One slot a minute: each goes to the most urgent caller waiting.
      for (let granted = 1; granted <= 5; granted++) {
        await time.elapse(MINUTE);
        await eventually(async () => t.sandbox.control.requests.length >= seen + granted);
      }
      const served = t.sandbox.control.requests.slice(seen, seen + 5).map(({ path, query }) => {
        if (path.endsWith('document.xml')) return `analysis ${query.rcept_no}`;
        if (path.endsWith('corpCode.xml')) return 'stock sync';
        if (query.corp_cls === 'Y') return `admin fetch ${query.bgn_de}`;
        return query.bgn_de === today ? 'monitor' : `backfill ${query.bgn_de}`;
      });
      expect(served).toEqual(['monitor', 'admin fetch 20261119', `analysis ${filing.rcept_no}`, 'backfill 20261102', 'stock sync']);

      await expect(poll).resolves.toEqual({ fetched: 0, saved: 0 });
      expect((await fetch).status).toBe(201);
      scheduler.pause();
      await scheduler.drain();
    });
  });

  describe('the daily limit (DART_REQUESTS_PER_DAY=10, wall clock at noon KST)', () => {
    let t: SandboxedApp;
    let dart: DartClient;
    let known: string[];

    beforeAll(async () => {
      t = await startSandboxedApp({ start: NOON_KST, app: { env: { DART_REQUESTS_PER_DAY: '10' } } });
      dart = t.app.get(DartClient);
      known = t.sandbox.control.companies().map((company) => company.corpCode);
      await storeCorpCodes(t, known);
    });
    afterAll(() => t?.close());
    beforeEach(() => {
      t.sandbox.control.setKeyStatus(null);
    });

    const fetchPage = () => admin(t, 'post', 'disclosures/fetch').query({ beginDate: '20261119', endDate: '20261119' });
    const statuses = async () =>
      Promise.all(
        ['backfill/status', 'stocks/sync/status', 'scheduler/status'].map(async (path) => (await admin(t, 'get', path).expect(200)).body),
      );

    it('answers 90 anonymous lookups of random unknown codes with 404 and no company.json call; an admin fetch is served at once', async () => {
      const knownSet = new Set(known);
      let seed = 12345;
      const codes: string[] = [];
      while (codes.length < 90) {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        const code = String(seed % 100_000_000).padStart(8, '0');
        if (!knownSet.has(code)) codes.push(code);
      }
      const before = t.sandbox.control.requests.length;
      const answers = await Promise.all(codes.map((code) => request(t.http).get(`/api/v1/companies/${code}`)));
      for (const res of answers) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('COMPANY_NOT_FOUND');
      }
      expect(t.sandbox.control.requests).toHaveLength(before);
      expect(dart.budgetStatus()).toMatchObject({ usedLastMinute: 0, waiting: 0 });

      await fetchPage().expect(201);
      expect(t.sandbox.control.requests).toHaveLength(before + 1);
    });

    it('stops calling when the KST day has used DART_REQUESTS_PER_DAY, answers 503 with Retry-After, shows it, and resumes the next KST day', async () => {
      const { usedToday, dailyLimit } = dart.budgetStatus();
      expect(dailyLimit).toBe(10);
      for (let used = usedToday; used < dailyLimit; used++) await fetchPage().expect(201);
      const calls = t.sandbox.control.requests.length;

      const refused = await fetchPage().expect(503);
      expect(refused.body.code).toBe('UPSTREAM_BUSY');
      expect(Number(refused.headers['retry-after'])).toBe((NEXT_KST_MIDNIGHT.getTime() - NOON_KST.getTime()) / 1000);
      const read = await request(t.http).get(`/api/v1/companies/${known[0]}`).expect(503);
      expect(read.body.code).toBe('UPSTREAM_BUSY');
      await expect(t.app.get(DisclosureMonitorService).pollOnce()).rejects.toMatchObject({ kind: 'budget', status: 'DAILY_LIMIT' });
      expect(t.sandbox.control.requests).toHaveLength(calls);

      for (const status of await statuses()) {
        expect(status.upstream).toMatchObject({ dailyLimit: 10, usedToday: 10, exhaustedUntil: NEXT_KST_MIDNIGHT.toISOString() });
      }

      t.clock.set(NEXT_KST_MIDNIGHT);
      await fetchPage().expect(201);
      expect(dart.budgetStatus()).toMatchObject({ usedToday: 1, exhaustedUntil: null });
      t.clock.set(NOON_KST);
    });

    it('never lets the monitor hammer a spent key: a poll after 020 makes no call', async () => {
      t.clock.set(new Date('2026-11-24T03:00:00Z'));
      t.sandbox.control.setKeyStatus('020');
      const monitor = t.app.get(DisclosureMonitorService);
      const calls = t.sandbox.control.requests.length;
      const first = await monitor.pollOnce().catch((error: unknown) => error);
      expect(first).toBeInstanceOf(DartError);
      expect(first).toMatchObject({ kind: 'budget', status: '020' });
      await expect(monitor.pollOnce()).rejects.toMatchObject({ kind: 'budget', status: 'DAILY_LIMIT' });
      expect(t.sandbox.control.requests).toHaveLength(calls + 1);
    });
  });

  describe('020 from the disclosure system', () => {
    let t: SandboxedApp;

    beforeAll(async () => {
      t = await startSandboxedApp({ start: NOON_KST, sandbox: { companyCount: 60 } });
    });
    afterAll(() => t?.close());

    const fetchPage = () => admin(t, 'post', 'disclosures/fetch').query({ beginDate: '20261119', endDate: '20261119' });
    const statuses = async () =>
      Promise.all(
        ['backfill/status', 'stocks/sync/status', 'scheduler/status'].map(async (path) => (await admin(t, 'get', path).expect(200)).body),
      );

    it('on 020 stops calling until the next KST day: analyses keep their attempts, the backfill and the stock sync wait, then all finish', async () => {
      const noon = NOON_KST;
      const midnight = NEXT_KST_MIDNIGHT;
      const scheduler = t.app.get(AnalysisSchedulerService);
      const filing: DartFiling = t.sandbox.control.publishFiling();
      await t.app.get(DisclosureIngestService).saveNew([filing], 'fetch');
      const analysis = async () =>
        (await t.dataSource.query('SELECT status, attempts, last_error FROM analyses WHERE rcept_no = $1', [filing.rcept_no]))[0];

      // The analysis meets the 020: it is put back without spending its attempt.
      t.sandbox.control.setKeyStatus('020');
      const calls = t.sandbox.control.requests.length;
      scheduler.resume();
      const postponed = await eventually(async () => {
        const row = await analysis();
        return row.last_error ? row : null;
      });
      scheduler.pause();
      await scheduler.drain();
      expect(postponed).toMatchObject({ status: 'PENDING', attempts: 0 });
      expect(postponed.last_error).toMatch(/020/);
      expect(t.sandbox.control.requests).toHaveLength(calls + 1);

      // Nobody calls for the rest of the day; the jobs wait instead of failing.
      t.sandbox.control.setKeyStatus(null);
      await admin(t, 'post', 'backfill').query({ fromDate: '20261119', toDate: '20261119', delayMs: 0 }).expect(202);
      await admin(t, 'post', 'stocks/sync').query({ mode: 'incremental' }).expect(202);
      const refused = await fetchPage().expect(503);
      expect(Number(refused.headers['retry-after'])).toBe((midnight.getTime() - noon.getTime()) / 1000);
      scheduler.resume();
      scheduler.fill();
      const [backfill, sync, schedulerStatus] = await statuses();
      for (const status of [backfill, sync, schedulerStatus]) {
        expect(status.upstream).toMatchObject({ exhaustedUntil: midnight.toISOString() });
      }
      expect(backfill).toMatchObject({ status: 'running', processed: 0, failed: 0 });
      expect(sync).toMatchObject({ status: 'running', processed: 0, failed: 0 });
      expect(await analysis()).toMatchObject({ status: 'PENDING', attempts: 0 });
      expect(t.sandbox.control.requests).toHaveLength(calls + 1);

      // The next KST day: everything resumes where it stopped.
      t.clock.set(new Date(midnight.getTime() + MINUTE));
      scheduler.fill();
      const backfillDone = await eventually(async () => {
        const status = (await admin(t, 'get', 'backfill/status').expect(200)).body;
        return status.status === 'running' ? null : status;
      }, 30_000);
      expect(backfillDone).toMatchObject({ status: 'completed', failed: 0, last_error: null });
      expect(backfillDone.saved).toBeGreaterThan(0);
      const syncDone = await eventually(async () => {
        const status = await t.app.get(StockSyncService).status();
        return status.status === 'running' ? null : status;
      }, 30_000);
      expect(syncDone).toMatchObject({ status: 'completed', failed: 0 });
      const analysed = await eventually(async () => {
        scheduler.fill();
        const row = await analysis();
        return row.status === 'PENDING' ? null : row;
      });
      expect(analysed).toMatchObject({ status: 'COMPLETED', attempts: 1 });
      expect((await t.app.get(BackfillService).status()).upstream).toMatchObject({ exhaustedUntil: null });
      scheduler.pause();
      await scheduler.drain();
    });
  });
});
