import { EventEmitter2 } from '@nestjs/event-emitter';
import request from 'supertest';
import { DisclosureMonitorService } from '../../src/disclosures/disclosure-monitor.service';
import { DISCLOSURE_CREATED, type DisclosureCreatedEvent } from '../../src/disclosures/disclosure-events';
import { reportTypeOf } from '../../src/disclosures/report-type';
import { ADMIN_KEY, eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';

describe('collecting filings', () => {
  let t: SandboxedApp;
  let events: DisclosureCreatedEvent[];

  beforeAll(async () => {
    t = await startSandboxedApp({ sandbox: { pastDays: 150, filingsPerBusinessDay: 12 } });
    events = [];
    t.app.get(EventEmitter2).on(DISCLOSURE_CREATED, (event: DisclosureCreatedEvent) => events.push(event));
  });
  afterAll(() => t?.close());

  const count = async (sql: string, params: unknown[] = []) => Number((await t.dataSource.query(sql, params))[0].n);
  const filingsOf = (from: string, to: string) =>
    t.sandbox.control.filings().filter((filing) => filing.rcept_dt >= from && filing.rcept_dt <= to);
  const listRequests = () => t.sandbox.control.requests.filter((r) => r.path.endsWith('list.json'));

  describe('the monitor', () => {
    let monitor: DisclosureMonitorService;
    beforeAll(() => {
      monitor = t.app.get(DisclosureMonitorService);
    });

    it("stores today's filings, each with a PENDING analysis, and announces each once", async () => {
      const today = t.sandbox.control.today();
      const upstreamToday = filingsOf(today, today);
      expect(upstreamToday.length).toBeGreaterThan(0);
      events.length = 0;

      const result = await monitor.pollOnce();

      expect(result).toEqual({ fetched: upstreamToday.length, saved: upstreamToday.length });
      expect(await count('SELECT count(*) AS n FROM disclosures WHERE rcept_dt = $1', [today])).toBe(upstreamToday.length);
      expect(await count("SELECT count(*) AS n FROM analyses WHERE status = 'PENDING'")).toBe(upstreamToday.length);
      expect(events.map((event) => event.disclosure.rcept_no).sort()).toEqual(upstreamToday.map((f) => f.rcept_no).sort());
      expect(new Set(events.map((event) => event.source))).toEqual(new Set(['monitor']));
    });

    it('picks up a new filing with one request, and stops at the filings it already has', async () => {
      const fresh = t.sandbox.control.publishFiling();
      t.sandbox.control.clearRequests();
      events.length = 0;

      expect(await monitor.pollOnce()).toEqual({ fetched: 1, saved: 1 });
      expect(listRequests()).toHaveLength(1);
      expect(events).toEqual([
        {
          source: 'monitor',
          disclosure: {
            rcept_no: fresh.rcept_no,
            corp_name: fresh.corp_name,
            corp_code: fresh.corp_code,
            stock_code: fresh.stock_code,
            report_name: fresh.report_nm,
            rcept_dt: fresh.rcept_dt,
            submitter: fresh.flr_nm,
            report_type: reportTypeOf(fresh.report_nm),
            is_correction: fresh.report_nm.startsWith('[기재정정]'),
            dart_url: `https://dart.fss.or.kr/dsaf001/main.do?rcpNo=${fresh.rcept_no}`,
          },
        },
      ]);
      const stored = await request(t.http).get(`/api/v1/disclosures/${fresh.rcept_no}`).expect(200);
      expect(stored.body).toEqual(events[0].disclosure);

      expect(await monitor.pollOnce()).toEqual({ fetched: 0, saved: 0 });
    });

    it('never touches rows it already has', async () => {
      const [row] = await t.dataSource.query('SELECT rcept_no FROM disclosures LIMIT 1');
      await t.dataSource.query("UPDATE disclosures SET corp_name = 'edited by hand' WHERE rcept_no = $1", [row.rcept_no]);
      await t.dataSource.query(`DELETE FROM disclosures WHERE rcept_no = (SELECT max(rcept_no) FROM disclosures)`);
      await monitor.pollOnce();
      const [kept] = await t.dataSource.query('SELECT corp_name FROM disclosures WHERE rcept_no = $1', [row.rcept_no]);
      expect(kept.corp_name).toBe('edited by hand');
    });

    it('polls by itself when DISCLOSURE_MONITOR_AUTO_START is true', async () => {
      const auto = await startSandboxedApp({
        app: {
          env: {
            DISCLOSURE_MONITOR_AUTO_START: 'true',
            DISCLOSURE_MONITOR_INTERVAL_MS: '1000',
            DISCLOSURE_MONITOR_IDLE_INTERVAL_MS: '1000',
          },
        },
      });
      try {
        const fresh = auto.sandbox.control.publishFiling();
        await eventually(
          async () => (await auto.dataSource.query('SELECT 1 FROM disclosures WHERE rcept_no = $1', [fresh.rcept_no])).length,
        );
        const later = auto.sandbox.control.publishFiling();
        await eventually(
          async () => (await auto.dataSource.query('SELECT 1 FROM disclosures WHERE rcept_no = $1', [later.rcept_no])).length,
        );
      } finally {
        await auto.close();
      }
    });
  });

  describe('POST /api/v1/admin/disclosures/fetch', () => {
    const fetch = (query: Record<string, string | number>) =>
      request(t.http).post('/api/v1/admin/disclosures/fetch').set('X-Admin-Key', ADMIN_KEY).query(query);
    const busyDay = () => {
      const byDay = new Map<string, number>();
      for (const filing of t.sandbox.control.filings()) {
        if (filing.corp_cls === 'Y' && filing.rcept_dt < t.sandbox.control.today()) {
          byDay.set(filing.rcept_dt, (byDay.get(filing.rcept_dt) ?? 0) + 1);
        }
      }
      return [...byDay.entries()].sort((a, b) => b[1] - a[1])[0][0];
    };

    it('stores one page of main-board filings, 20 by default, and says how many were new', async () => {
      const day = busyDay();
      t.sandbox.control.clearRequests();
      const first = await fetch({ beginDate: day, endDate: day }).expect(201);
      const upstream = filingsOf(day, day).filter((filing) => filing.corp_cls === 'Y');
      const expected = Math.min(20, upstream.length);
      expect(first.body).toEqual({ fetched: expected, saved: expected, disclosures: expect.any(Array) });
      expect(first.body.disclosures[0]).toEqual({
        rcept_no: upstream[0].rcept_no,
        corp_name: upstream[0].corp_name,
        corp_code: upstream[0].corp_code,
        stock_code: upstream[0].stock_code,
        report_name: upstream[0].report_nm,
        rcept_dt: day,
        submitter: upstream[0].flr_nm,
        report_type: reportTypeOf(upstream[0].report_nm),
        is_correction: upstream[0].report_nm.startsWith('[기재정정]'),
        dart_url: `https://dart.fss.or.kr/dsaf001/main.do?rcpNo=${upstream[0].rcept_no}`,
      });
      expect(listRequests()[0].query).toMatchObject({ bgn_de: day, end_de: day, corp_cls: 'Y', page_no: '1', page_count: '20' });

      const again = await fetch({ beginDate: day, endDate: day }).expect(201);
      expect(again.body).toMatchObject({ fetched: expected, saved: 0 });
    });

    it('queries one company when corpCode is given, with paging', async () => {
      const filing = t.sandbox.control.filings().find((f) => f.rcept_dt < t.sandbox.control.today())!;
      t.sandbox.control.clearRequests();
      const res = await fetch({
        beginDate: filing.rcept_dt,
        endDate: filing.rcept_dt,
        corpCode: filing.corp_code,
        pageNo: 1,
        pageCount: 5,
      }).expect(201);
      expect(res.body.disclosures.map((d: { corp_code: string }) => d.corp_code)).toContain(filing.corp_code);
      expect(new Set(res.body.disclosures.map((d: { corp_code: string }) => d.corp_code))).toEqual(new Set([filing.corp_code]));
      const query = listRequests()[0].query;
      expect(query).toMatchObject({ corp_code: filing.corp_code, page_count: '5' });
      expect(query.corp_cls).toBeUndefined();
    });

    it('answers 201 with an empty list when upstream has nothing', async () => {
      const res = await fetch({ beginDate: '20000103', endDate: '20000103' }).expect(201);
      expect(res.body).toEqual({ fetched: 0, saved: 0, disclosures: [] });
    });

    it.each([
      [{ endDate: '20261120' }, /beginDate/],
      [{ beginDate: '20261120' }, /endDate/],
      [{ beginDate: '20261131', endDate: '20261201' }, /beginDate must be a calendar date/],
      [{ beginDate: '2026-11-20', endDate: '20261120' }, /beginDate must be a calendar date/],
      [{ beginDate: '20261121', endDate: '20261120' }, /endDate must not be before beginDate/],
      [{ beginDate: '20261120', endDate: '20261120', pageCount: 101 }, /pageCount/],
    ])('answers 400 with a message for %j', async (query, message) => {
      const res = await fetch(query).expect(400);
      expect(res.body.message).toMatch(message);
    });

    it('answers 500 when the upstream call fails, and stores nothing', async () => {
      const before = await count('SELECT count(*) AS n FROM disclosures');
      t.sandbox.control.failNext(2, '900');
      const limited = await fetch({ beginDate: busyDay(), endDate: busyDay() }).expect(500);
      expect(limited.body).toMatchObject({ statusCode: 500, code: 'UPSTREAM_FAILED' });
      expect(limited.body.message).toMatch(/900/);

      t.sandbox.control.setKeyStatus('011');
      try {
        const refused = await fetch({ beginDate: busyDay(), endDate: busyDay() }).expect(500);
        expect(refused.body.message).toMatch(/011/);
        expect(JSON.stringify(refused.body)).not.toContain(t.sandbox.apiKey);
      } finally {
        t.sandbox.control.setKeyStatus(null);
      }
      expect(await count('SELECT count(*) AS n FROM disclosures')).toBe(before);
    });

    it('needs the admin key', async () => {
      await request(t.http).post('/api/v1/admin/disclosures/fetch').query({ beginDate: '20261120', endDate: '20261120' }).expect(401);
    });
  });

  describe('backfill', () => {
    const start = (query: Record<string, string | number>) =>
      request(t.http).post('/api/v1/admin/backfill').set('X-Admin-Key', ADMIN_KEY).query(query);
    const status = async () => (await request(t.http).get('/api/v1/admin/backfill/status').set('X-Admin-Key', ADMIN_KEY).expect(200)).body;
    const finished = () => eventually(async () => ((await status()).status === 'running' ? null : status()), 30_000);

    it('collects a range longer than the upstream allows, reporting progress, without announcing news', async () => {
      const to = t.sandbox.control.today();
      const from = t.sandbox.control.filings().at(-1)!.rcept_dt; // the oldest filing: about 150 days back
      const upstream = filingsOf(from, to);
      const known = await count('SELECT count(*) AS n FROM disclosures');
      events.length = 0;

      const res = await start({ fromDate: from, toDate: to, delayMs: 0 }).expect(202);
      expect(res.body).toEqual({ message: expect.any(String), fromDate: from, toDate: to });
      const done = await finished();

      expect(done).toMatchObject({
        status: 'completed',
        phase: 'collecting',
        fromDate: from,
        toDate: to,
        total: upstream.length,
        processed: upstream.length,
        saved: upstream.length - known,
        failed: 0,
        last_error: null,
        resumed_at: null,
        eta_seconds: 0,
      });
      expect(done.rate_per_second).toBeGreaterThan(0);
      expect(await count('SELECT count(*) AS n FROM disclosures')).toBe(upstream.length);
      expect(await count('SELECT count(*) AS n FROM analyses')).toBe(upstream.length);
      expect(events.every((event) => event.source === 'backfill')).toBe(true);
      expect(events).toHaveLength(upstream.length - known);
      // Every upstream request stayed within the 3-month rule (the sandbox answers 100 otherwise).
      expect(done.last_error).toBeNull();
    });

    it('answers 400 while a backfill runs, and paces new filings by delayMs', async () => {
      await t.dataSource.query('DELETE FROM disclosures');
      const day = t.sandbox.control.filings().find((f) => f.rcept_dt < t.sandbox.control.today())!.rcept_dt;
      const started = Date.now();
      await start({ fromDate: day, toDate: day, delayMs: 100 }).expect(202);
      const busy = await start({ fromDate: day, toDate: day }).expect(400);
      expect(busy.body.code).toBe('BACKFILL_RUNNING');
      const done = await finished();
      expect(done.status).toBe('completed');
      expect(done.saved).toBeGreaterThan(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(100 * done.saved);
    });

    it.each([
      [{ toDate: '20261120' }, /fromDate/],
      [{ fromDate: '20261120' }, /toDate/],
      [{ fromDate: '20260229', toDate: '20260301' }, /fromDate must be a calendar date/],
      [{ fromDate: '20261120', toDate: '20261101' }, /toDate must not be before fromDate/],
      [{ fromDate: '20261120', toDate: '20261120', delayMs: -1 }, /delayMs/],
    ])('answers 400 for %j', async (query, message) => {
      const res = await start(query).expect(400);
      expect(res.body.message).toMatch(message);
    });

    it('fails visibly when the key is refused', async () => {
      t.sandbox.control.setKeyStatus('011');
      try {
        await start({ fromDate: '20261101', toDate: '20261102', delayMs: 0 }).expect(202);
        const done = await finished();
        expect(done.status).toBe('failed');
        expect(done.last_error).toMatch(/011/);
        expect(done.finished_at).toEqual(expect.any(String));
      } finally {
        t.sandbox.control.setKeyStatus(null);
      }
    });
  });
});
