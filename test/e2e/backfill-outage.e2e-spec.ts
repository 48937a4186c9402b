import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { type DartSandbox, startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../local/embedded-postgres';
import { createRootLogger } from '../../src/logging/root-logger';
import { FakeClock } from '../support/fake-clock';
import { ADMIN_KEY, eventually, sandboxEnv } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

interface BackfillStatus {
  status: string;
  total: number;
  processed: number;
  failed: number;
  saved: number;
  resumed_at: string | null;
}

/**
 * A backfill's `saved` through a database outage. Its own embedded PostgreSQL is stopped
 * while the backfill stores filings, and started again on the same port: the executor loses
 * its leadership session, stops the run and cannot write its last progress, so the run resumes
 * from a checkpoint older than the filings already stored. Those are found stored again and
 * must still be counted once: `saved` is counted in each filing's own transaction.
 */
describe('a backfill through a database outage', () => {
  let dir: string;
  let clusterDir: string;
  let cluster: EmbeddedDatabase;
  let sandbox: DartSandbox;
  let t: TestApp;
  const clock = new FakeClock();
  const messages: string[] = [];

  const startCluster = (port?: number) => startEmbeddedPostgres({ clusterDir, databaseName: 'briefing', port });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-backfill-outage-'));
    fs.chmodSync(dir, 0o755);
    clusterDir = path.join(dir, 'cluster');
    cluster = await startCluster();
    sandbox = await startDartSandbox({ companyCount: 400, seed: 13, pastDays: 30, filingsPerBusinessDay: 10, now: () => clock.now() });
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) messages.push((JSON.parse(line) as { msg: string }).msg);
        done();
      },
    });
    t = await startTestApp({
      database: { url: cluster.url, drop: async () => undefined },
      clock,
      rateLimits: RELAXED_RATE_LIMITS,
      logger: createRootLogger({ appEnv: 'dev', logLevel: 'info' }, destination),
      env: {
        ...sandboxEnv(sandbox),
        LOG_LEVEL: 'info',
        DISCLOSURE_MONITOR_AUTO_START: 'false',
        DART_REQUESTS_PER_MINUTE: '100000',
        // The leadership session is pinged and reopened often.
        LEADER_TAKEOVER_MS: '2000',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await t?.close().catch(() => undefined);
    await sandbox?.close();
    await cluster?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const count = async (sql: string) => Number((await t.dataSource.query<{ n: string }[]>(sql))[0].n);

  it('counts in `saved` exactly the filings it stored, though it resumed from a checkpoint taken before the outage', async () => {
    const from = sandbox.control.filings().at(-1)!.rcept_dt;
    const to = sandbox.control.today();
    const upstream = sandbox.control.filings().filter((filing) => filing.rcept_dt >= from && filing.rcept_dt <= to);
    expect(upstream.length).toBeGreaterThan(100);

    await request(t.http)
      .post('/api/v1/admin/backfill')
      .set('X-Admin-Key', ADMIN_KEY)
      .query({ fromDate: from, toDate: to, delayMs: 25 })
      .expect(202);
    // Filings are stored that the run's last progress write (about once a second) does not carry yet.
    await eventually(async () => {
      const [run] = await t.dataSource.query<{ processed: number }[]>("SELECT processed FROM job_runs WHERE kind = 'backfill'");
      return run !== undefined && run.processed >= 10 && (await count('SELECT count(*) AS n FROM disclosures')) > run.processed;
    });

    const { port } = cluster;
    await cluster.stop();
    // The executor lost its session: the run stops, and its release cannot be written.
    await eventually(() => messages.some((message) => /final state not saved/.test(message)), 60_000);
    cluster = await startCluster(port);

    const done = await eventually(async () => {
      const res = await request(t.http).get('/api/v1/admin/backfill/status').set('X-Admin-Key', ADMIN_KEY);
      const status = res.body as BackfillStatus;
      return res.status === 200 && status.status !== 'running' ? status : null;
    }, 120_000);
    expect(done).toMatchObject({ status: 'completed', total: upstream.length, processed: upstream.length, failed: 0 });
    // It was resumed: the filings after its last checkpoint were read again, and found stored.
    expect(done.resumed_at).toEqual(expect.any(String));
    expect(await count('SELECT count(*) AS n FROM disclosures')).toBe(upstream.length);
    expect(done.saved).toBe(upstream.length);
  }, 180_000);
});
