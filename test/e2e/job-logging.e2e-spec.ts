import { Writable } from 'node:stream';
import request from 'supertest';
import { createRootLogger } from '../../src/logging/root-logger';
import { ADMIN_KEY, eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';

interface LogLine {
  level: string;
  msg: string;
  context?: string;
  reqId?: string;
  job?: string;
  jobId?: string;
}

/**
 * Background work logs as itself: a backfill started by an admin request logs with
 * its own job id, never the request's, and says how far it got every JOB_PROGRESS_LOG_MS.
 */
describe('background work in the log', () => {
  const lines: LogLine[] = [];
  let t: SandboxedApp;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    t = await startSandboxedApp({
      sandbox: { pastDays: 20, filingsPerBusinessDay: 6 },
      app: {
        logger: createRootLogger({ appEnv: 'dev', logLevel: 'debug' }, destination),
        env: { LOG_LEVEL: 'debug', JOB_PROGRESS_LOG_MS: '250', DART_REQUESTS_PER_MINUTE: '100000' },
      },
    });
  });
  afterAll(() => t?.close());

  it('logs a backfill with the job id of its run, and one progress line per period with total, rate and time left', async () => {
    const from = t.sandbox.control.filings().at(-1)!.rcept_dt;
    const to = t.sandbox.control.today();
    const started = await request(t.http)
      .post('/api/v1/admin/backfill')
      .query({ fromDate: from, toDate: to, delayMs: 25 })
      .set('X-Admin-Key', ADMIN_KEY)
      .set('X-Request-Id', 'the-start-request');
    expect(started.status).toBe(202);
    await eventually(async () => {
      const status = (await request(t.http).get('/api/v1/admin/backfill/status').set('X-Admin-Key', ADMIN_KEY)).body as { status: string };
      return status.status === 'completed';
    }, 30_000);

    const requestLines = lines.filter((line) => line.reqId === 'the-start-request');
    expect(requestLines.length).toBeGreaterThan(0);
    const runLines = lines.filter((line) => line.context === 'JobRunsRepository:backfill');
    const [{ id: runId }] = await t.dataSource.query<{ id: number }[]>("SELECT id FROM job_runs WHERE kind = 'backfill'");
    expect(runLines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([`backfill run ${runId} started`, expect.stringMatching(new RegExp(`^backfill run ${runId} completed`))]),
    );
    for (const line of runLines) {
      expect(line).toMatchObject({ job: 'backfill', jobId: `backfill-run-${runId}` });
      expect(line.reqId).toBeUndefined();
    }
    const progress = runLines.filter((line) => /^run \d+ collecting: /.test(line.msg));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0].msg).toMatch(
      new RegExp(`^run ${runId} collecting: \\d+/\\d+ \\(\\d+%\\), 0 failed, \\d+\\.\\d/s(, about \\d+ s left)?$`),
    );
    expect(progress.some((line) => / s left$/.test(line.msg))).toBe(true);
  });

  it('gives the work a request wakes (the analyses a resume request sets going) job ids of their own', async () => {
    const resumed = await request(t.http)
      .post('/api/v1/admin/scheduler/resume')
      .set('X-Admin-Key', ADMIN_KEY)
      .set('X-Request-Id', 'the-resume-request');
    expect(resumed.status).toBeLessThan(300);
    const analysisLines = () => lines.filter((line) => line.msg.startsWith('analysis of '));
    await eventually(async () => analysisLines().length >= 3);
    expect(new Set(analysisLines().map((line) => line.jobId)).size).toBeGreaterThan(1);
    for (const line of analysisLines()) {
      expect(line.job).toBe('analysis');
      expect(line.jobId).toMatch(/^analysis-[0-9a-f]{8}$/);
      expect(line.reqId).toBeUndefined();
    }
  });
});
