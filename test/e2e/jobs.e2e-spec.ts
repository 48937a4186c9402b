import request from 'supertest';
import { JOB_CATALOG } from '../../src/jobs/job-catalog';
import type { JobView } from '../../src/jobs/job-listing';
import { ADMIN_KEY, eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';

describe('GET /api/v1/admin/jobs on one instance', () => {
  let t: SandboxedApp;

  beforeAll(async () => {
    t = await startSandboxedApp({
      app: {
        env: {
          DISCLOSURE_MONITOR_AUTO_START: 'true',
          DISCLOSURE_MONITOR_INTERVAL_MS: '1000',
          DISCLOSURE_MONITOR_IDLE_INTERVAL_MS: '1000',
          ANALYSIS_SCHEDULER_AUTO_START: 'true',
          ANALYSIS_CONCURRENCY: '3',
        },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const jobs = async (): Promise<Map<string, JobView>> => {
    const response = await request(t.http).get('/api/v1/admin/jobs').set('X-Admin-Key', ADMIN_KEY).expect(200);
    return new Map((response.body as { jobs: JobView[] }).jobs.map((job) => [job.name, job]));
  };
  const job = async (name: string) => (await jobs()).get(name)!;

  it('refuses without the admin key', async () => {
    await request(t.http).get('/api/v1/admin/jobs').expect(401);
  });

  it('lists every job of the catalog once, as declared, with its effective concurrency', async () => {
    const listed = await jobs();
    expect([...listed.keys()]).toEqual(JOB_CATALOG.map((declared) => declared.name));
    expect(listed.get('retention')).toMatchObject({
      schedule: { kind: 'cron', cron: '0 45 4 * * *', time_zone: 'Asia/Seoul', on_demand: false },
      runs_on: 'one-instance',
      concurrency: 1,
      scheduled: true,
    });
    expect(listed.get('stock-sync')!.schedule).toMatchObject({ kind: 'cron', on_demand: true });
    expect(listed.get('backfill')).toMatchObject({ schedule: { kind: 'on-demand', on_demand: true }, scheduled: false, next_run_at: null });
    expect(listed.get('analysis')).toMatchObject({ runs_on: 'every-instance', concurrency: 3, schedule: { poll_interval_ms: 5000 } });
  });

  it('names this instance as the holder of every job of one instance that is switched on, and the worker of each queue', async () => {
    const listed = await eventually(async () => {
      const current = await jobs();
      return current.get('retention')!.holder !== null ? current : undefined;
    });
    const holder = listed.get('retention')!.holder;
    for (const name of ['disclosure-monitor', 'stock-sync', 'backfill', 'downgrade-cleanup', 'rate-limit-sweep', 'retention']) {
      expect({ name, holder: listed.get(name)!.holder }).toEqual({ name, holder });
    }
    expect(listed.get('push')).toMatchObject({ state: 'running', instances: [holder] });
    expect(listed.get('analysis')).toMatchObject({ state: 'running', instances: [holder] });
  });

  it("gives a cron job's next run in KST from its cron: retention at 04:45 KST, 19:45 UTC", async () => {
    const next = new Date((await job('retention')).next_run_at!);
    expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([19, 45, 0]);
  });

  it("records the monitor's runs: the last success, then a failure with its error, then a success again", async () => {
    const succeeded = await eventually(async () => {
      const monitor = await job('disclosure-monitor');
      return monitor.last_succeeded_at !== null ? monitor : undefined;
    });
    expect(succeeded).toMatchObject({ state: 'running', last_error: null });
    // The loop scheduled its next poll a second after the last one ended.
    expect(Date.parse(succeeded.next_run_at!) - Date.parse(succeeded.last_finished_at!)).toBe(1000);

    // Runs are recorded at the app's clock, which moves only when told.
    t.clock.advance(60_000);
    // Both attempts of the next poll fail.
    t.sandbox.control.failNext(2, 'http500', 'list.json');
    const failed = await eventually(async () => {
      const monitor = await job('disclosure-monitor');
      return monitor.last_error !== null ? monitor : undefined;
    });
    expect(failed.last_error_at).toBe(failed.last_finished_at);
    t.clock.advance(60_000);

    const recovered = await eventually(async () => {
      const monitor = await job('disclosure-monitor');
      return Date.parse(monitor.last_succeeded_at!) > Date.parse(failed.last_error_at!) ? monitor : undefined;
    });
    // The error stays listed, older than the success that followed.
    expect(recovered.last_error).toBe(failed.last_error);
  });

  it("reports a queue's latest success: an analysis done shows on the analysis job", async () => {
    const before = (await job('analysis')).last_succeeded_at;
    t.clock.advance(60_000);
    t.sandbox.control.publishFiling();
    await eventually(async () => {
      const analysis = await job('analysis');
      return analysis.last_succeeded_at !== null && analysis.last_succeeded_at !== before;
    }, 20_000);
  });

  it('shows the latest run with its progress for a job that reports it', async () => {
    const today = t.sandbox.control.today();
    await request(t.http)
      .post('/api/v1/admin/backfill')
      .query({ fromDate: today, toDate: today, delayMs: 0 })
      .set('X-Admin-Key', ADMIN_KEY)
      .expect(202);
    const backfill = await eventually(async () => {
      const listed = await job('backfill');
      return listed.run?.status === 'completed' ? listed : undefined;
    });
    expect(backfill.state).toBe('idle');
    expect(backfill.last_succeeded_at).toBe(backfill.last_finished_at);
    expect(backfill.last_started_at).not.toBeNull();
  });
});
