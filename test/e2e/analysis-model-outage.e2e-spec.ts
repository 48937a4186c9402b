import request from 'supertest';
import { startDartSandbox, type DartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { validAnswer } from '../../local/doubles/analysis-answers';
import {
  chatCompletion,
  type ModelServerAnswer,
  type ModelServerDouble,
  type RecordedRequest,
  startModelServerDouble,
} from '../../local/doubles/model-server-double';
import { AnalysisOutages1764525000000 } from '../../migrations/1764525000000-analysis-outages';
import { AnalysisSchedulerService } from '../../src/analysis/analysis-scheduler.service';
import { Analyzer } from '../../src/analysis/analyzers/analyzer';
import { OpenAiAnalyzer } from '../../src/analysis/analyzers/openai.analyzer';
import { DisclosureIngestService } from '../../src/disclosures/disclosure-ingest.service';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { FakeClock } from '../support/fake-clock';
import { insertAnalyses, insertFilings } from '../support/fixtures';
import { seedSchemaBefore } from '../support/migrated-before';
import { eventually, type SandboxedApp, sandboxEnv, startSandboxedApp } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// What the scheduler is configured with here; the circuit's threshold is its own (3).
const CONCURRENCY = 3;
const MAX_ATTEMPTS = 5;
const RETRY_BASE_MS = 1_000;
const OUTAGE_THRESHOLD = 3;
/** The model call's timeout in these tests: a hung model costs this much real time per call. */
const MODEL_TIMEOUT_MS = 300;

const MODEL_ENV = {
  AI_PROVIDER: 'openai',
  OPENAI_API_KEY: 'test-openai-key',
  OPENAI_MODEL: 'double-model',
  ANALYSIS_SCHEDULER_AUTO_START: 'false',
  ANALYSIS_CONCURRENCY: String(CONCURRENCY),
  ANALYSIS_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
  ANALYSIS_RETRY_BASE_MS: String(RETRY_BASE_MS),
};

const DOCUMENT =
  '<?xml version="1.0" encoding="utf-8"?><DOCUMENT><DOCUMENT-NAME>단일판매ㆍ공급계약체결</DOCUMENT-NAME><BODY><SECTION-1><TITLE>단일판매ㆍ공급계약체결</TITLE>' +
  `<P>${'회사는 신규 공급계약을 체결하였습니다. '.repeat(80)}</P></SECTION-1></BODY></DOCUMENT>`;

const rateLimited = (retryAfterSeconds?: number): ModelServerAnswer => ({
  status: 429,
  body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
  headers: retryAfterSeconds === undefined ? undefined : { 'retry-after': String(retryAfterSeconds) },
});
const overloaded = (status: number): ModelServerAnswer => ({ status, body: { error: { message: 'overloaded' } } });
const notJson = (): ModelServerAnswer => chatCompletion('죄송합니다. 지금은 분석할 수 없습니다.');
const valid = (): ModelServerAnswer => chatCompletion(JSON.stringify(validAnswer()));

type AnswerKind = 'ok' | 'outage' | 'bad';

function kindOf(answer: ModelServerAnswer): AnswerKind {
  if (answer === 'hang' || answer.status !== 200) return 'outage';
  const content = (answer.body as { choices: { message: { content: string } }[] }).choices[0].message.content;
  return content === JSON.stringify(validAnswer()) ? 'ok' : 'bad';
}

/** Answers as the test's script says, by the filing's report name, and counts what it answered. */
function scriptedModel(model: ModelServerDouble) {
  const log: { report: string; kind: AnswerKind }[] = [];
  let script: (report: string, index: number) => ModelServerAnswer = () => valid();
  model.answerWith((req: RecordedRequest) => {
    const prompt = (req.body as { messages?: { content: string }[] } | null)?.messages?.at(-1)?.content ?? '';
    const report = /^공시: (.*)$/m.exec(prompt)?.[1] ?? '';
    const answer = script(report, log.filter((entry) => entry.report === report).length);
    log.push({ report, kind: kindOf(answer) });
    return answer;
  });
  return {
    /** `index`: how many calls for this filing came before. */
    set(next: (report: string, index: number) => ModelServerAnswer) {
      script = next;
    },
    calls: (kind?: AnswerKind, report?: string) =>
      log.filter((entry) => (kind === undefined || entry.kind === kind) && (report === undefined || entry.report === report)).length,
  };
}

describe('a model outage never makes a filing unavailable for good', () => {
  let model: ModelServerDouble;
  let scripted: ReturnType<typeof scriptedModel>;
  let t: SandboxedApp;
  let scheduler: AnalysisSchedulerService;
  let serial = 0;

  beforeAll(async () => {
    model = await startModelServerDouble();
    scripted = scriptedModel(model);
    t = await startSandboxedApp({
      app: {
        env: { ...MODEL_ENV, OPENAI_BASE_URL: `${model.url}/v1` },
        // The real SDK against the double, with a timeout short enough to hang on for real.
        overrides: [
          {
            provide: Analyzer,
            useValue: new OpenAiAnalyzer(
              { baseUrl: `${model.url}/v1`, apiKey: 'test-openai-key', model: 'double-model' },
              { timeoutMs: MODEL_TIMEOUT_MS },
            ),
          },
        ],
      },
    });
    scheduler = t.app.get(AnalysisSchedulerService);
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });
  afterEach(async () => {
    scheduler.pause();
    await scheduler.drain();
    scripted.set(() => valid());
  });

  async function newFiling(reportName = `공급계약 ${++serial}호`): Promise<DartFiling> {
    const filing = t.sandbox.control.publishFiling({ report_nm: reportName });
    t.sandbox.control.setDocument(filing.rcept_no, DOCUMENT);
    await t.app.get(DisclosureIngestService).saveNew([filing], 'fetch');
    return filing;
  }
  const rowsOf = async (filings: DartFiling[]) =>
    (await t.dataSource.query(
      `SELECT rcept_no, status, attempts, outage_failures, available_at FROM analyses WHERE rcept_no = ANY($1::text[]) ORDER BY rcept_no`,
      [filings.map((filing) => filing.rcept_no)],
    )) as { rcept_no: string; status: string; attempts: number; outage_failures: number; available_at: Date | null }[];
  /** Moves the clock, wakes the scheduler as its poll would, and waits until nothing runs. */
  async function tick(ms = 1_000): Promise<void> {
    t.clock.advance(ms);
    scheduler.fill();
    await scheduler.drain();
  }

  it('keeps every filing PENDING through a minute of 429s, 5xx and timeouts, spending no attempt, and analyses each once it answers', async () => {
    const filings = await Promise.all(Array.from({ length: 8 }, () => newFiling()));
    const outages = [rateLimited(), overloaded(503), 'hang' as const, overloaded(502), rateLimited()];
    scripted.set((_report, index) => outages[index % outages.length]);
    const [before, okBefore, outagesBefore] = [scripted.calls(), scripted.calls('ok'), scripted.calls('outage')];

    scheduler.resume();
    await scheduler.drain();
    // The first wave: every slot called, and a freed slot called again until the circuit opened.
    const firstWave = scripted.calls() - before;
    expect(firstWave).toBeLessThanOrEqual(CONCURRENCY + OUTAGE_THRESHOLD - 1);
    for (let second = 0; second < 60; second++) await tick();

    // Pauses of 1, 2, 4, 8, 16 and 32 s: a handful of probes in the minute, not a call per filing per poll.
    const duringOutage = scripted.calls() - before;
    expect(scripted.calls('ok')).toBe(okBefore);
    expect(duringOutage).toBeGreaterThan(firstWave);
    expect(duringOutage).toBeLessThanOrEqual(firstWave + Math.ceil(Math.log2(60)));
    const waiting = await rowsOf(filings);
    expect(waiting.map((row) => row.status).filter((status) => status !== 'PENDING')).toEqual([]);
    expect(waiting.map((row) => row.attempts)).toEqual(filings.map(() => 0));
    expect(waiting.filter((row) => row.outage_failures > 0).length).toBeGreaterThan(0);
    // What the API says meanwhile: PENDING, nothing else.
    for (const filing of filings) {
      expect((await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).expect(200)).body).toMatchObject({
        status: 'PENDING',
        one_liner: null,
        result: null,
      });
    }
    // A filing postponed far ahead, as a long outage leaves one, waits no longer than the outage.
    const postponed = waiting.find((row) => row.outage_failures > 0)!;
    await t.dataSource.query(`UPDATE analyses SET available_at = now() + interval '1 hour' WHERE rcept_no = $1`, [postponed.rcept_no]);

    scripted.set(() => valid());
    const recoveredAt = t.clock.monotonicMs();
    await eventually(async () => {
      await tick();
      return (await rowsOf(filings)).every((row) => row.status === 'COMPLETED');
    });
    // Within the longest pause the circuit had reached, not the hour.
    expect(t.clock.monotonicMs() - recoveredAt).toBeLessThanOrEqual(64_000);

    const done = await rowsOf(filings);
    expect(done.map((row) => [row.status, row.attempts, row.outage_failures])).toEqual(filings.map(() => ['COMPLETED', 1, 0]));
    // One answer per filing, and every other call was the retry of a failed one.
    expect(scripted.calls('ok') - okBefore).toBe(filings.length);
    expect(scripted.calls() - before).toBe(filings.length + scripted.calls('outage') - outagesBefore);
  }, 60_000);

  it('honours Retry-After: nothing is called before it ends, then one probe at a time until the model answers', async () => {
    const filings = await Promise.all(Array.from({ length: 5 }, () => newFiling()));
    scripted.set(() => rateLimited(30));
    const before = scripted.calls();

    scheduler.resume();
    await scheduler.drain();
    const firstWave = scripted.calls() - before;
    // The first 429 names the wait: only calls already under way when it came fail with it too.
    expect(firstWave).toBeGreaterThanOrEqual(1);
    expect(firstWave).toBeLessThanOrEqual(CONCURRENCY);
    for (let second = 1; second < 30; second++) await tick();
    expect(scripted.calls() - before).toBe(firstWave);
    await tick();
    expect(scripted.calls() - before).toBe(firstWave + 1);
    for (let second = 1; second < 30; second++) await tick();
    expect(scripted.calls() - before).toBe(firstWave + 1);

    scripted.set(() => valid());
    await tick();
    const done = await rowsOf(filings);
    expect(done.map((row) => [row.status, row.attempts])).toEqual(filings.map(() => ['COMPLETED', 1]));
    expect(scripted.calls() - before).toBe(firstWave + 1 + filings.length);
  });

  it('makes a filing the model answers badly five times UNAVAILABLE, whatever outages came between, and never asks again', async () => {
    const bad = await newFiling('불량응답 공시');
    // Outages between its bad answers spend nothing; the bad answers spend its five attempts.
    const sequence = [
      rateLimited(),
      notJson(),
      overloaded(503),
      notJson(),
      'hang' as const,
      notJson(),
      notJson(),
      rateLimited(),
      notJson(),
    ];
    scripted.set((report, index) => (report === bad.report_nm ? (sequence[index] ?? notJson()) : valid()));
    scheduler.resume();
    const [row] = await eventually(async () => {
      await tick(8_000);
      const rows = await rowsOf([bad]);
      return rows[0].status === 'UNAVAILABLE' ? rows : null;
    });
    expect(row).toMatchObject({ status: 'UNAVAILABLE', attempts: MAX_ATTEMPTS, outage_failures: 0 });
    expect(scripted.calls(undefined, bad.report_nm)).toBe(sequence.length);
    expect((await request(t.http).get(`/api/v1/ai/analyze/${bad.rcept_no}`).expect(200)).body.status).toBe('UNAVAILABLE');

    // An outage and the model's return re-queue what the outage held back, not this filing.
    scripted.set(() => overloaded(500));
    const other = await newFiling();
    for (let second = 0; second < 10; second++) await tick();
    expect((await rowsOf([other]))[0]).toMatchObject({ status: 'PENDING', attempts: 0 });
    scripted.set(() => valid());
    await eventually(async () => {
      await tick();
      return (await rowsOf([other]))[0].status === 'COMPLETED';
    });
    for (let minute = 0; minute < 10; minute++) await tick(60_000);
    expect((await rowsOf([bad]))[0]).toMatchObject({ status: 'UNAVAILABLE', attempts: MAX_ATTEMPTS });
    expect(scripted.calls(undefined, bad.report_nm)).toBe(sequence.length);
  });
});

describe('analyses an outage left UNAVAILABLE before outages stopped spending attempts', () => {
  let model: ModelServerDouble;
  let sandbox: DartSandbox;
  let database: TestDatabase;
  let app: TestApp;
  const clock = new FakeClock();
  const legacy: Record<string, { filing: DartFiling; lastError: string }> = {};

  beforeAll(async () => {
    model = await startModelServerDouble();
    model.answerWith(() => valid());
    sandbox = await startDartSandbox({ companyCount: 400, seed: 11, now: () => clock.now() });
    database = await createTestDatabase({ empty: true });

    // The schema as it was, with what the old scheduler left behind.
    await seedSchemaBefore(database.url, AnalysisOutages1764525000000, async (old) => {
      const errors = {
        rateLimited: 'the OpenAI-compatible API answered HTTP 429: Rate limit reached for requests',
        overloaded: 'the Anthropic API answered HTTP 529: Overloaded',
        timedOut: 'https://api.openai.com/v1 did not answer within 120 s',
        unreachable: 'could not reach https://api.openai.com/v1: Connection error. (connect ECONNREFUSED 127.0.0.1:443)',
        badAnswer: 'the model answered outside the schema: not JSON ("죄송합니다"…)',
        noDocument: 'disclosure system 014: 파일이 존재하지 않습니다',
      };
      for (const [name, lastError] of Object.entries(errors)) {
        const filing = sandbox.control.publishFiling({ report_nm: `예전 공시 ${name}` });
        sandbox.control.setDocument(filing.rcept_no, DOCUMENT);
        legacy[name] = { filing, lastError };
        await insertFilings(old, [
          {
            rcept_no: filing.rcept_no,
            corp_code: filing.corp_code,
            corp_name: filing.corp_name,
            stock_code: filing.stock_code,
            report_name: filing.report_nm,
            rcept_dt: filing.rcept_dt,
          },
        ]);
        await insertAnalyses(old, [{ rcept_no: filing.rcept_no, status: 'UNAVAILABLE' }]);
        await old.query('UPDATE analyses SET attempts = 5, last_error = $2 WHERE rcept_no = $1', [filing.rcept_no, lastError]);
      }
    });

    // The new version starts: its migration runs, then its scheduler.
    app = await startTestApp({
      database,
      clock,
      rateLimits: RELAXED_RATE_LIMITS,
      env: { ...sandboxEnv(sandbox), DISCLOSURE_MONITOR_AUTO_START: 'false', ...MODEL_ENV, OPENAI_BASE_URL: `${model.url}/v1` },
    });
  });
  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
    await model?.close();
    await database?.drop();
  });

  const rowOf = async (name: string) =>
    (
      await app.dataSource.query('SELECT status, attempts, outage_failures, one_liner FROM analyses WHERE rcept_no = $1', [
        legacy[name].filing.rcept_no,
      ])
    )[0] as { status: string; attempts: number; outage_failures: number; one_liner: string | null };

  it('tells them by their last error, and re-queues them once the model answers again; the others stay UNAVAILABLE', async () => {
    const outages = ['rateLimited', 'overloaded', 'timedOut', 'unreachable'];
    const terminal = ['badAnswer', 'noDocument'];
    for (const name of outages) expect(await rowOf(name)).toMatchObject({ status: 'UNAVAILABLE', outage_failures: 1 });
    for (const name of terminal) expect(await rowOf(name)).toMatchObject({ status: 'UNAVAILABLE', outage_failures: 0 });
    // Until the model answers, the API says what is stored.
    const first = legacy.rateLimited.filing.rcept_no;
    expect((await request(app.http).get(`/api/v1/ai/analyze/${first}`).expect(200)).body.status).toBe('UNAVAILABLE');

    // A new filing is the first thing the model answers after the start.
    const scheduler = app.app.get(AnalysisSchedulerService);
    const fresh = sandbox.control.publishFiling({ report_nm: '새 공시' });
    sandbox.control.setDocument(fresh.rcept_no, DOCUMENT);
    await app.app.get(DisclosureIngestService).saveNew([fresh], 'fetch');
    scheduler.resume();
    await eventually(async () => {
      scheduler.fill();
      await scheduler.drain();
      const rows = await Promise.all(outages.map(rowOf));
      return rows.every((row) => row.status === 'COMPLETED');
    });
    scheduler.pause();
    await scheduler.drain();

    for (const name of outages) {
      expect(await rowOf(name)).toMatchObject({ status: 'COMPLETED', attempts: 1, outage_failures: 0, one_liner: validAnswer().headline });
    }
    for (const name of terminal) expect(await rowOf(name)).toMatchObject({ status: 'UNAVAILABLE', attempts: 5 });
    expect((await request(app.http).get(`/api/v1/ai/analyze/${first}`).expect(200)).body.status).toBe('COMPLETED');
    // The new filing and the four re-queued ones, once each.
    expect(model.requests.filter((req) => req.path.endsWith('/chat/completions'))).toHaveLength(1 + outages.length);
  });
});
