import request from 'supertest';
import { JobRunsRepository } from '../../src/jobs/runs/job-runs.repository';
import { type DartSandbox, startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { FakeClock } from '../support/fake-clock';
import { ADMIN_KEY, eventually, sandboxEnv } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * Several instances of the service on one database and one disclosure-system
 * sandbox: the backfill and the stock sync run once for the fleet, their progress
 * is read from any instance, and a run survives the instance that executed it.
 */
describe('job runs across the fleet', () => {
  let sandbox: DartSandbox;
  let database: TestDatabase;
  const clock = new FakeClock();
  const running: TestApp[] = [];

  beforeAll(async () => {
    // Every answer takes a little while, so a stock sync lasts long enough to be interrupted.
    sandbox = await startDartSandbox({
      companyCount: 8000,
      seed: 11,
      pastDays: 40,
      filingsPerBusinessDay: 6,
      latencyMs: 60,
      now: () => clock.now(),
    });
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of running.splice(0)) await app.close();
    await sandbox?.close();
    await database?.drop();
  });

  async function startInstance(): Promise<TestApp> {
    const app = await startTestApp({
      database,
      clock,
      rateLimits: RELAXED_RATE_LIMITS,
      env: {
        ...sandboxEnv(sandbox),
        DISCLOSURE_MONITOR_AUTO_START: 'false',
        // The budget is shared by the fleet through the database: the default 600 a minute would pace these runs.
        DART_REQUESTS_PER_MINUTE: '100000',
        // A closed leader's jobs move on quickly.
        LEADER_TAKEOVER_MS: '2000',
      },
    });
    running.push(app);
    return app;
  }
  async function stop(app: TestApp): Promise<void> {
    running.splice(running.indexOf(app), 1);
    await app.close();
  }
  const admin = (app: TestApp, method: 'get' | 'post', path: string) =>
    request(app.http)[method](`/api/v1/admin/${path}`).set('X-Admin-Key', ADMIN_KEY);
  const statusOf = async (app: TestApp, path: 'backfill/status' | 'stocks/sync/status') => (await admin(app, 'get', path).expect(200)).body;
  /** The instance whose JobRunsRepository executes the running run of `kind`. */
  async function executorOf(apps: TestApp[], kind: string): Promise<TestApp> {
    const runBy = await eventually(async () => {
      const [row] = await apps[0].dataSource.query("SELECT run_by FROM job_runs WHERE kind = $1 AND status = 'running'", [kind]);
      return row?.run_by as string | undefined;
    });
    const executor = apps.find((app) => app.app.get(JobRunsRepository).instanceId === runBy);
    if (!executor) throw new Error(`run_by ${runBy} is none of the instances`);
    return executor;
  }
  const count = async (app: TestApp, sql: string) => Number((await app.dataSource.query(sql))[0].n);

  it('reports idle on every instance before any run', async () => {
    const [one, two] = [await startInstance(), await startInstance()];
    for (const app of [one, two]) {
      expect(await statusOf(app, 'backfill/status')).toMatchObject({
        status: 'idle',
        phase: null,
        total: 0,
        processed: 0,
        rate_per_second: null,
        eta_seconds: null,
        resumed_at: null,
      });
      expect(await statusOf(app, 'stocks/sync/status')).toMatchObject({ status: 'idle', mode: null, phase: null, total: 0 });
    }
  });

  it('accepts exactly one of simultaneous starts on three instances (backfill 400, stock sync 409 for the rest)', async () => {
    while (running.length < 3) await startInstance();
    const day = sandbox.control.filings().find((filing) => filing.rcept_dt < sandbox.control.today())!.rcept_dt;
    const backfills = await Promise.all(
      running.flatMap((app) => [1, 2].map(() => admin(app, 'post', 'backfill').query({ fromDate: day, toDate: day, delayMs: 0 }))),
    );
    expect(backfills.map((res) => res.status).sort()).toEqual([202, 400, 400, 400, 400, 400]);
    for (const res of backfills.filter((r) => r.status === 400)) expect(res.body.code).toBe('BACKFILL_RUNNING');

    const syncs = await Promise.all(
      running.flatMap((app) => [1, 2].map(() => admin(app, 'post', 'stocks/sync').query({ mode: 'incremental' }))),
    );
    expect(syncs.map((res) => res.status).sort()).toEqual([202, 409, 409, 409, 409, 409]);
    for (const res of syncs.filter((r) => r.status === 409)) expect(res.body.code).toBe('STOCK_SYNC_RUNNING');

    for (const path of ['backfill/status', 'stocks/sync/status'] as const) {
      const done = await eventually(async () => {
        const status = await statusOf(running[2], path);
        return status.status === 'running' ? null : status;
      }, 30_000);
      expect(done).toMatchObject({ status: 'completed', last_error: null, eta_seconds: 0 });
      expect(done.processed).toBe(done.total);
    }
    expect(await count(running[0], 'SELECT count(*) AS n FROM job_runs')).toBe(2);
  });

  it('shows a backfill started on one instance, with its total, progress, rate and time left, on another; a graceful stop of its executor hands it over and every filing is stored once', async () => {
    await emptyDisclosures(running[0]);
    const from = sandbox.control.filings().at(-1)!.rcept_dt;
    const to = sandbox.control.today();
    const upstream = sandbox.control.filings().filter((filing) => filing.rcept_dt >= from && filing.rcept_dt <= to);
    expect(upstream.length).toBeGreaterThan(60);

    await admin(running[0], 'post', 'backfill').query({ fromDate: from, toDate: to, delayMs: 40 }).expect(202);
    const executor = await executorOf(running, 'backfill');
    const observer = running.find((app) => app !== executor)!;
    const moving = await eventually(async () => {
      const status = await statusOf(observer, 'backfill/status');
      return status.phase === 'collecting' && status.processed >= 10 && status.rate_per_second !== null ? status : null;
    });
    expect(moving).toMatchObject({ status: 'running', fromDate: from, toDate: to, total: upstream.length, failed: 0, resumed_at: null });
    expect(moving.rate_per_second).toBeGreaterThan(0);
    // 40 ms a filing at most 25 a second: the rest takes at least (left / 25) seconds.
    expect(moving.rate_per_second).toBeLessThanOrEqual(26);
    expect(moving.eta_seconds).toBeGreaterThanOrEqual(Math.floor((upstream.length - moving.processed) / 26));

    await stop(executor);
    const handedOver = (
      await running[0].dataSource.query("SELECT run_by, processed FROM job_runs WHERE kind = 'backfill' AND status = 'running'")
    )[0];
    // Stopped at a safe point: still running, its checkpoint written, waiting for the next executor.
    expect(handedOver?.processed).toBeGreaterThanOrEqual(moving.processed);
    expect(handedOver.processed).toBeLessThan(upstream.length);

    const done = await eventually(async () => {
      const status = await statusOf(running[0], 'backfill/status');
      return status.status === 'running' ? null : status;
    }, 30_000);
    expect(done).toMatchObject({
      status: 'completed',
      total: upstream.length,
      processed: upstream.length,
      saved: upstream.length,
      failed: 0,
      eta_seconds: 0,
    });
    expect(done.resumed_at).toEqual(expect.any(String));
    expect(await count(running[0], 'SELECT count(*) AS n FROM disclosures')).toBe(upstream.length);
    expect(await count(running[0], 'SELECT count(*) AS n FROM analyses')).toBe(upstream.length);
  });

  it('keeps the status over a restart of the whole fleet', async () => {
    const before = await statusOf(running[0], 'backfill/status');
    for (const app of [...running]) await stop(app);
    const restarted = await startInstance();
    const after = await statusOf(restarted, 'backfill/status');
    expect({ ...after, upstream: null }).toEqual({ ...before, upstream: null });
  });

  it('hands a bootstrap stock sync over the same way: every stock-coded company looked up, the master exact', async () => {
    while (running.length < 2) await startInstance();
    sandbox.control.clearRequests();
    await admin(running[1], 'post', 'stocks/sync').query({ mode: 'bootstrap' }).expect(202);
    const executor = await executorOf(running, 'stock-sync');
    const observer = running.find((app) => app !== executor)!;
    const lookingUp = await eventually(async () => {
      const status = await statusOf(observer, 'stocks/sync/status');
      return status.phase === 'looking-up' && status.processed >= 16 ? status : null;
    });
    const stockCoded = sandbox.control.companies().filter((company) => company.stockCode !== null).length;
    expect(lookingUp).toMatchObject({ status: 'running', mode: 'bootstrap', total: stockCoded });
    await stop(executor);

    const done = await eventually(async () => {
      const status = await statusOf(observer, 'stocks/sync/status');
      return status.status === 'running' ? null : status;
    }, 30_000);
    expect(done).toMatchObject({
      status: 'completed',
      mode: 'bootstrap',
      phase: 'removing',
      total: stockCoded,
      processed: stockCoded,
      failed: 0,
    });
    expect(done.resumed_at).toEqual(expect.any(String));
    const expected = [...sandbox.control.companiesIn('Y'), ...sandbox.control.companiesIn('K')].map((company) => company.corpCode).sort();
    const stored: { corp_code: string }[] = await observer.dataSource.query('SELECT corp_code FROM stocks ORDER BY corp_code');
    expect(stored.map((row) => row.corp_code)).toEqual(expected);
    // Every stock-coded company was looked up by this run, once: the lookups in flight at the stop
    // finished and were recorded, and the new executor skipped them.
    expect(
      await count(observer, `SELECT count(*) AS n FROM corp_codes WHERE stock_code IS NOT NULL AND checked_at >= '${done.started_at}'`),
    ).toBe(stockCoded);
    expect(sandbox.control.requests.filter((r) => r.path.endsWith('company.json'))).toHaveLength(stockCoded);
  });

  it('takes over a run whose executor went silent (a crash): the dead executor writes nothing more, another resumes it', async () => {
    while (running.length < 2) await startInstance();
    await emptyDisclosures(running[0]);
    const day = sandbox.control.filings().find((filing) => filing.rcept_dt < sandbox.control.today())!.rcept_dt;
    const upstream = sandbox.control.filings().filter((filing) => filing.rcept_dt === day);
    await admin(running[0], 'post', 'backfill').query({ fromDate: day, toDate: day, delayMs: 300 }).expect(202);
    await eventually(async () => (await statusOf(running[0], 'backfill/status')).processed >= 2);
    // What a crashed instance leaves: a running row nobody has written for an hour.
    await running[0].dataSource.query(
      "UPDATE job_runs SET run_by = 'crashed-instance', updated_at = now() - interval '1 hour' WHERE kind = 'backfill' AND status = 'running'",
    );
    const done = await eventually(async () => {
      const status = await statusOf(running[1], 'backfill/status');
      return status.status === 'running' ? null : status;
    }, 30_000);
    expect(done).toMatchObject({ status: 'completed', total: upstream.length, processed: upstream.length, failed: 0 });
    expect(done.resumed_at).toEqual(expect.any(String));
    // Filings stored after the last progress write of the lost executor are found again as known: they were
    // counted when stored, and the lost executor, still running, can no longer store and count any.
    expect(done.saved).toBe(upstream.length);
    expect(await count(running[0], 'SELECT count(*) AS n FROM disclosures')).toBe(upstream.length);
    const [row] = await running[0].dataSource.query("SELECT run_by FROM job_runs WHERE kind = 'backfill' ORDER BY id DESC LIMIT 1");
    expect(running.map((app) => app.app.get(JobRunsRepository).instanceId)).toContain(row.run_by);
  });
});

/**
 * Empties the filings (and what references them) under the running instances' own jobs. The
 * cascade locks table after table while those jobs hold theirs, so PostgreSQL may end it as one
 * side of a deadlock: then it is simply run again.
 */
async function emptyDisclosures(app: TestApp): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await app.dataSource.query('TRUNCATE disclosures CASCADE');
      return;
    } catch (error) {
      const deadlock = (error as { driverError?: { code?: string } }).driverError?.code === '40P01';
      if (!deadlock || attempt === 5) throw error;
    }
  }
}
