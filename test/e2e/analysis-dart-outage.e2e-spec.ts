import request from 'supertest';
import { type DartFailureMode, type DartSandbox, startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { validAnswer } from '../../local/doubles/analysis-answers';
import { chatCompletion, type ModelServerDouble, startModelServerDouble } from '../../local/doubles/model-server-double';
import { AnalysisDartOutages1764531000000 } from '../../migrations/1764531000000-analysis-dart-outages';
import { AnalysisSchedulerService } from '../../src/analysis/analysis-scheduler.service';
import { DisclosureIngestService } from '../../src/disclosures/disclosure-ingest.service';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { FakeClock } from '../support/fake-clock';
import { insertAnalyses, insertFilings } from '../support/fixtures';
import { seedSchemaBefore } from '../support/migrated-before';
import { type SandboxedApp, eventually, sandboxEnv, startSandboxedApp } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, type TestApp, startTestApp } from '../support/test-app';
import { type TestDatabase, createTestDatabase } from '../support/test-database';

// What the scheduler is configured with here; the circuits' threshold is its own (3).
const CONCURRENCY = 3;
const MAX_ATTEMPTS = 3;
const RETRY_BASE_MS = 1_000;
const OUTAGE_THRESHOLD = 3;
/** Requests per document.xml call: the client's own retries (sandboxEnv's DART_MAX_ATTEMPTS). */
const DART_ATTEMPTS = 2;
/** A hung document.xml costs this much real time per request. */
const DART_TIMEOUT_MS = 200;
/** The most document.xml requests before the circuit opens: every slot, then a freed slot until the third outage. */
const FIRST_WAVE_REQUESTS = (CONCURRENCY + OUTAGE_THRESHOLD - 1) * DART_ATTEMPTS;

const ENV = {
  AI_PROVIDER: 'openai',
  OPENAI_API_KEY: 'test-openai-key',
  OPENAI_MODEL: 'double-model',
  ANALYSIS_SCHEDULER_AUTO_START: 'false',
  ANALYSIS_CONCURRENCY: String(CONCURRENCY),
  ANALYSIS_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
  ANALYSIS_RETRY_BASE_MS: String(RETRY_BASE_MS),
  DART_MAX_ATTEMPTS: String(DART_ATTEMPTS),
  DART_TIMEOUT_MS: String(DART_TIMEOUT_MS),
};

const DOCUMENT =
  '<?xml version="1.0" encoding="utf-8"?><DOCUMENT><DOCUMENT-NAME>단일판매ㆍ공급계약체결</DOCUMENT-NAME><BODY><SECTION-1><TITLE>단일판매ㆍ공급계약체결</TITLE>' +
  `<P>${'회사는 신규 공급계약을 체결하였습니다. '.repeat(80)}</P></SECTION-1></BODY></DOCUMENT>`;

const valid = () => chatCompletion(JSON.stringify(validAnswer()));

interface Row {
  rcept_no: string;
  status: string;
  attempts: number;
  outage_failures: number;
  last_error: string | null;
}

describe('a disclosure-system outage never makes a filing unavailable for good', () => {
  let model: ModelServerDouble;
  let t: SandboxedApp;
  let scheduler: AnalysisSchedulerService;

  beforeAll(async () => {
    model = await startModelServerDouble();
    model.answerWith(() => valid());
    t = await startSandboxedApp({ app: { env: { ...ENV, OPENAI_BASE_URL: `${model.url}/v1` } } });
    scheduler = t.app.get(AnalysisSchedulerService);
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });

  async function newFiling(document: string | null): Promise<DartFiling> {
    const filing = t.sandbox.control.publishFiling();
    t.sandbox.control.setDocument(filing.rcept_no, document);
    await t.app.get(DisclosureIngestService).saveNew([filing], 'fetch');
    return filing;
  }
  const rowsOf = async (filings: DartFiling[]) =>
    (await t.dataSource.query(
      `SELECT rcept_no, status, attempts, outage_failures, last_error FROM analyses WHERE rcept_no = ANY($1::text[]) ORDER BY rcept_no`,
      [filings.map((filing) => filing.rcept_no)],
    )) as Row[];
  const documentRequests = () => t.sandbox.control.requests.filter((req) => req.path === '/api/document.xml').length;
  const chatCalls = () => model.requests.filter((req) => req.path.endsWith('/chat/completions')).length;
  /** Moves the clock, wakes the scheduler as its poll would, and waits until nothing runs. */
  async function tick(ms = 1_000): Promise<void> {
    t.clock.advance(ms);
    scheduler.fill();
    await scheduler.drain();
  }

  /**
   * document.xml fails, cycling through `modes`, for as long as the test keeps it out: `keep(n)`
   * leaves at least `n` failures queued in the sandbox. Every document.xml request since the start
   * took one of them while `remaining()` is not negative.
   */
  function documentOutage(modes: DartFailureMode[]) {
    const start = documentRequests();
    let queued = 0;
    const remaining = () => queued - (documentRequests() - start);
    return {
      remaining,
      requests: () => documentRequests() - start,
      keep(n: number) {
        while (remaining() < n) t.sandbox.control.failNext(1, modes[queued++ % modes.length], 'document.xml');
      },
    };
  }

  it('keeps every filing PENDING through a minute of 800s, HTTP 500s and hung downloads, spending no attempt, and analyses each once DART answers', async () => {
    // Both upstreams answered since the start: only the disclosure system's return can re-queue what follows.
    const before = await newFiling(DOCUMENT);
    scheduler.resume();
    await scheduler.drain();
    expect((await rowsOf([before]))[0].status).toBe('COMPLETED');
    scheduler.pause();

    // Stored first, so the first wave fetches it: a filing without a document.
    const noDocument = await newFiling(null);
    const filings = [noDocument, ...(await Promise.all(Array.from({ length: 6 }, () => newFiling(DOCUMENT))))];
    const withDocument = filings.slice(1);
    const chatsBefore = chatCalls();
    const outage = documentOutage(['800', 'http500', 'hang']);

    outage.keep(FIRST_WAVE_REQUESTS);
    scheduler.resume();
    await scheduler.drain();
    expect(outage.requests()).toBeLessThanOrEqual(FIRST_WAVE_REQUESTS);
    for (let second = 0; second < 60; second++) {
      // After the first wave, the circuit lets one probe (DART_ATTEMPTS requests) through at a time.
      outage.keep(DART_ATTEMPTS);
      await tick();
      expect(outage.remaining()).toBeGreaterThanOrEqual(0);
    }

    // Pauses of 1, 2, 4, 8, 16 and 32 s: a handful of probes in the minute, not a fetch per filing per poll.
    expect(outage.requests()).toBeLessThanOrEqual(FIRST_WAVE_REQUESTS + DART_ATTEMPTS * Math.ceil(Math.log2(60)));
    expect(chatCalls()).toBe(chatsBefore);
    const waiting = await rowsOf(filings);
    expect(waiting.map((row) => [row.status, row.attempts])).toEqual(filings.map(() => ['PENDING', 0]));
    expect(waiting.filter((row) => row.outage_failures > 0).length).toBeGreaterThanOrEqual(OUTAGE_THRESHOLD);
    expect(waiting.find((row) => row.outage_failures > 0)!.last_error).toMatch(/^disclosure system (800|HTTP 500|TIMEOUT): /);
    for (const filing of filings) {
      expect((await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).expect(200)).body.status).toBe('PENDING');
    }
    // A filing postponed far ahead, as a long outage leaves one, waits no longer than the outage.
    const postponed = waiting.find((row) => row.outage_failures > 0 && row.rcept_no !== noDocument.rcept_no)!;
    await t.dataSource.query(`UPDATE analyses SET available_at = $2 WHERE rcept_no = $1`, [
      postponed.rcept_no,
      new Date(t.clock.nowMs() + 3_600_000),
    ]);

    // The outage ends once the failures still queued are used up: the next request is answered.
    const failing = outage.requests() + outage.remaining();
    let ticks = 0;
    while (outage.requests() <= failing) {
      await tick();
      ticks += 1;
      expect(ticks).toBeLessThan(10 * 60);
    }
    // In the tick the disclosure system first answered, everything it held back was fetched and analysed.
    const done = await rowsOf(withDocument);
    expect(done.map((row) => [row.status, row.attempts, row.outage_failures])).toEqual(withDocument.map(() => ['COMPLETED', 1, 0]));
    expect(chatCalls() - chatsBefore).toBe(withDocument.length);
    const [missing] = await rowsOf([noDocument]);
    expect(missing).toMatchObject({ status: 'UNAVAILABLE', attempts: 1 });
    expect(missing.last_error).toMatch(/^disclosure system 014: /);

    // Nothing is asked again: the filing without a document stays as it is.
    const requestsAfter = documentRequests();
    for (let minute = 0; minute < 5; minute++) await tick(60_000);
    expect(documentRequests()).toBe(requestsAfter);
    expect((await rowsOf([noDocument]))[0]).toMatchObject({ status: 'UNAVAILABLE', attempts: 1 });
    expect(chatCalls() - chatsBefore).toBe(withDocument.length);
    scheduler.pause();
    await scheduler.drain();
  }, 60_000);
});

describe('analyses a disclosure-system outage left UNAVAILABLE before outages stopped spending attempts', () => {
  let model: ModelServerDouble;
  let sandbox: DartSandbox;
  let database: TestDatabase;
  let app: TestApp;
  const clock = new FakeClock();
  const legacy: Record<string, DartFiling> = {};
  const errors = {
    maintenance:
      'disclosure system 800: document.xml answered 800: 시스템 점검으로 인한 서비스가 중지 중입니다. (gave up after 4 attempts)',
    undefinedError: 'disclosure system 900: document.xml answered 900: 정의되지 않은 오류가 발생하였습니다. (gave up after 4 attempts)',
    serverError: 'disclosure system HTTP 503: document.xml: HTTP 503 (gave up after 4 attempts)',
    timedOut: 'disclosure system TIMEOUT: document.xml: no complete answer within 20000 ms (gave up after 4 attempts)',
    unreachable: 'disclosure system NETWORK: document.xml: fetch failed (ECONNREFUSED) (gave up after 4 attempts)',
    noDocument: 'disclosure system 014: document.xml has no file for 20260101000001 (014: 파일이 존재하지 않습니다.)',
    refused: 'disclosure system HTTP 404: document.xml: HTTP 404',
    badAnswer: 'the model answered outside the schema: not JSON ("죄송합니다"…)',
  };
  const outages = ['maintenance', 'undefinedError', 'serverError', 'timedOut', 'unreachable'];
  const terminal = ['noDocument', 'refused', 'badAnswer'];

  beforeAll(async () => {
    model = await startModelServerDouble();
    model.answerWith(() => valid());
    sandbox = await startDartSandbox({ companyCount: 400, seed: 13, now: () => clock.now() });
    database = await createTestDatabase({ empty: true });

    // The schema as it was, with what the old scheduler left behind.
    await seedSchemaBefore(database.url, AnalysisDartOutages1764531000000, async (old) => {
      for (const [name, lastError] of Object.entries(errors)) {
        const filing = sandbox.control.publishFiling({ report_nm: `예전 공시 ${name}` });
        sandbox.control.setDocument(filing.rcept_no, DOCUMENT);
        legacy[name] = filing;
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

    app = await startTestApp({
      database,
      clock,
      rateLimits: RELAXED_RATE_LIMITS,
      env: { ...sandboxEnv(sandbox), DISCLOSURE_MONITOR_AUTO_START: 'false', ...ENV, OPENAI_BASE_URL: `${model.url}/v1` },
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
      await app.dataSource.query('SELECT status, attempts, outage_failures FROM analyses WHERE rcept_no = $1', [legacy[name].rcept_no])
    )[0] as { status: string; attempts: number; outage_failures: number };

  it('tells them by their last error, and re-queues them at the first answer of the disclosure system; the others stay UNAVAILABLE', async () => {
    for (const name of outages) expect(await rowOf(name)).toMatchObject({ status: 'UNAVAILABLE', outage_failures: 1 });
    for (const name of terminal) expect(await rowOf(name)).toMatchObject({ status: 'UNAVAILABLE', outage_failures: 0 });

    // The first answer after the start is a 014: the disclosure system is there, the model was never asked.
    const scheduler = app.app.get(AnalysisSchedulerService);
    const fresh = sandbox.control.publishFiling({ report_nm: '문서 없는 새 공시' });
    sandbox.control.setDocument(fresh.rcept_no, null);
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

    for (const name of outages) expect(await rowOf(name)).toMatchObject({ status: 'COMPLETED', attempts: 1, outage_failures: 0 });
    for (const name of terminal) expect(await rowOf(name)).toMatchObject({ status: 'UNAVAILABLE', attempts: 5 });
    expect(model.requests.filter((req) => req.path.endsWith('/chat/completions'))).toHaveLength(outages.length);
  });
});
