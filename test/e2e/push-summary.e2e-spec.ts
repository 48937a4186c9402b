import request from 'supertest';
import { AnalysisSchedulerService } from '../../src/analysis/analysis-scheduler.service';
import { DisclosureMonitorService } from '../../src/disclosures/disclosure-monitor.service';
import { PushDispatcher } from '../../src/push/push-dispatcher';
import { PushSender } from '../../src/push/push-sender';
import { PushSenderDouble } from '../../local/doubles/push-sender-double';
import { createUser, insertAnalyses, insertFilings } from '../support/fixtures';
import { eventually, type SandboxedApp, sandboxEnv, startSandboxedApp } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const documentXml = (title: string) =>
  `<?xml version="1.0" encoding="utf-8"?><DOCUMENT><DOCUMENT-NAME>${title}</DOCUMENT-NAME><BODY><SECTION-1><TITLE>${title}</TITLE>` +
  `<P>${'회사는 신규 시설투자를 위하여 금 5,000,000,000원을 투자하기로 결정하였습니다. '.repeat(20)}</P></SECTION-1></BODY></DOCUMENT>`;

/** A watcher of `corpCode` with one Android token; answers the token. */
async function watcher(t: TestApp, corpCode: string): Promise<string> {
  const user = await createUser(t.dataSource);
  await t.dataSource.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name) VALUES ($1, $2, $3)', [user, corpCode, 'watched']);
  const token = `summary-token-${user}`;
  await t.dataSource.query("INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ($1, $2, 'android')", [token, user]);
  return token;
}

describe('the push carries the one-line summary', () => {
  // Each test's sandbox publishes the same receipt numbers (one seed): a sender of its own each.
  let sender: PushSenderDouble;
  let t: SandboxedApp;

  beforeEach(() => {
    sender = new PushSenderDouble();
  });
  afterEach(async () => {
    await t?.close();
  });

  const start = (env: Record<string, string>) =>
    startSandboxedApp({
      sandbox: { filingsPerBusinessDay: 4 },
      app: { rateLimits: RELAXED_RATE_LIMITS, env, overrides: [{ provide: PushSender, useValue: sender }] },
    });

  /** Publishes a filing of `corpCode` with a document the analyzer can read, and lets the monitor store it. */
  async function newFiling(app: SandboxedApp, corpCode: string) {
    const filing = app.sandbox.control.publishFiling({ corp_code: corpCode, report_nm: '주요사항보고서(유상증자결정)' });
    app.sandbox.control.setDocument(filing.rcept_no, documentXml(filing.report_nm));
    expect((await app.app.get(DisclosureMonitorService).pollOnce()).saved).toBeGreaterThanOrEqual(1);
    return filing;
  }
  const sentFor = (rceptNo: string) => sender.messages().filter((message) => message.data.rcept_no === rceptNo);
  /**
   * Has the app's dispatcher look for work `passes` times, as its poll does, and waits until each
   * pass and whatever it sent has ended: what could go out by now has gone.
   */
  async function dispatchPasses(app: TestApp, passes = 2): Promise<void> {
    const dispatcher = app.app.get(PushDispatcher);
    for (let i = 0; i < passes; i++) {
      dispatcher.wake();
      await dispatcher.drain();
    }
  }
  const fanoutOf = async (app: TestApp, rceptNo: string) =>
    (
      await app.dataSource.query<{ status: string; deliveries: number | null }[]>(
        'SELECT status, deliveries FROM push_fanouts WHERE rcept_no = $1',
        [rceptNo],
      )
    )[0];

  it('waits for the analysis, then sends one message whose body is exactly the one-liner the API shows', async () => {
    t = await start({ PUSH_SUMMARY_WAIT_MS: '60000' });
    await t.app.get(DisclosureMonitorService).pollOnce();
    const corpCode = t.sandbox.control.companiesIn('Y')[2].corpCode;
    const token = await watcher(t, corpCode);
    const filing = await newFiling(t, corpCode);

    // The analysis has not run: nothing goes, however often the dispatcher looks.
    await dispatchPasses(t);
    expect(sentFor(filing.rcept_no)).toEqual([]);
    expect(await fanoutOf(t, filing.rcept_no)).toEqual({ status: 'PENDING', deliveries: null });

    t.app.get(AnalysisSchedulerService).resume();
    await eventually(async () => sentFor(filing.rcept_no).length > 0, 20_000);
    const analysis = (await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).expect(200)).body as { one_liner: string };
    expect(analysis.one_liner.length).toBeGreaterThan(0);
    expect(sentFor(filing.rcept_no)).toEqual([
      {
        token,
        title: filing.corp_name,
        body: analysis.one_liner,
        data: { rcept_no: filing.rcept_no, corp_code: corpCode },
        collapseKey: filing.rcept_no,
      },
    ]);
  });

  it('sends the report name once when the analysis does not finish in time, and nothing more when it does', async () => {
    t = await start({ PUSH_SUMMARY_WAIT_MS: '1500' });
    await t.app.get(DisclosureMonitorService).pollOnce();
    const corpCode = t.sandbox.control.companiesIn('Y')[3].corpCode;
    await watcher(t, corpCode);
    const filing = await newFiling(t, corpCode);

    await eventually(async () => sentFor(filing.rcept_no).length > 0, 10_000);
    expect(sentFor(filing.rcept_no).map((message) => message.body)).toEqual([`새 공시: ${filing.report_nm}`]);

    t.app.get(AnalysisSchedulerService).resume();
    await eventually(async () => {
      const [row] = await t.dataSource.query<{ status: string }[]>('SELECT status FROM analyses WHERE rcept_no = $1', [filing.rcept_no]);
      return row.status === 'COMPLETED';
    }, 20_000);
    await dispatchPasses(t);
    expect(sentFor(filing.rcept_no)).toHaveLength(1);
    expect(await fanoutOf(t, filing.rcept_no)).toEqual({ status: 'EXPANDED', deliveries: 1 });
  });

  it('keeps a waiting fan-out over a restart: the next instance sends it exactly once, with the one-liner', async () => {
    t = await start({ PUSH_SUMMARY_WAIT_MS: '60000' });
    await t.app.get(DisclosureMonitorService).pollOnce();
    const corpCode = t.sandbox.control.companiesIn('Y')[4].corpCode;
    await watcher(t, corpCode);
    const filing = await newFiling(t, corpCode);
    await dispatchPasses(t);
    expect(await fanoutOf(t, filing.rcept_no)).toEqual({ status: 'PENDING', deliveries: null });

    // Shut down while the fan-out waits, then start again on the same database and upstream.
    const { database, sandbox } = t;
    await t.app.close();
    expect(sentFor(filing.rcept_no)).toEqual([]);
    const again = await startTestApp({
      database,
      rateLimits: RELAXED_RATE_LIMITS,
      overrides: [{ provide: PushSender, useValue: sender }],
      env: { ...sandboxEnv(sandbox), DISCLOSURE_MONITOR_AUTO_START: 'false', PUSH_SUMMARY_WAIT_MS: '60000' },
    });
    try {
      again.app.get(AnalysisSchedulerService).resume();
      await eventually(async () => sentFor(filing.rcept_no).length > 0, 20_000);
      await dispatchPasses(again);
      const [analysis] = await again.dataSource.query<{ one_liner: string }[]>('SELECT one_liner FROM analyses WHERE rcept_no = $1', [
        filing.rcept_no,
      ]);
      expect(sentFor(filing.rcept_no).map((message) => message.body)).toEqual([analysis.one_liner]);
    } finally {
      await again.close();
    }
  });

  it('analyses a watched filing ahead of a backlog: a large backfill never delays the push', async () => {
    t = await start({ PUSH_SUMMARY_WAIT_MS: '60000', ANALYSIS_CONCURRENCY: '1' });
    await t.app.get(DisclosureMonitorService).pollOnce();
    // 300 older filings waiting for their analysis, as a backfill leaves them.
    const backlog = Array.from({ length: 300 }, (_, i) => ({
      rcept_no: `20250101${String(i + 1).padStart(6, '0')}`,
      corp_code: '39999999',
      created_at: new Date(Date.now() - 3_600_000 + i),
    }));
    await insertFilings(t.dataSource, backlog);
    await insertAnalyses(
      t.dataSource,
      backlog.map((filing) => ({ rcept_no: filing.rcept_no, status: 'PENDING' as const })),
    );
    const corpCode = t.sandbox.control.companiesIn('K')[0].corpCode;
    await watcher(t, corpCode);
    const filing = await newFiling(t, corpCode);

    t.app.get(AnalysisSchedulerService).resume();
    await eventually(async () => sentFor(filing.rcept_no).length > 0, 20_000);
    const [{ before }] = await t.dataSource.query<{ before: number }[]>(
      `SELECT count(*)::int AS before FROM analyses
       WHERE rcept_no LIKE '20250101%' AND status <> 'PENDING'
         AND updated_at < (SELECT updated_at FROM analyses WHERE rcept_no = $1)`,
      [filing.rcept_no],
    );
    expect(before).toBe(0);
    expect(sentFor(filing.rcept_no)[0].body).not.toMatch(/^새 공시: /);
  });
});
