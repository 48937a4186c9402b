/**
 * `npm run bench:latency`: from a filing's publication upstream to its push handed to
 * the sender. The real AppModule with its real monitor, analysis scheduler and push
 * dispatcher, against the disclosure-system sandbox over HTTP; the sandbox publishes
 * filings of watched companies at random moments. Two configurations: the builtin
 * analyzer, and a model (the model server double, over HTTP) that answers in 3 s.
 * Results: docs/benchmarks-latency.md.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { monitorCallsPerDay } from '../src/disclosures/monitor-cadence';
import { type PushMessage, PushSender, type PushSendResult } from '../src/push/push-sender';
import { startDartSandbox } from '../local/dart-sandbox/dart-sandbox';
import { Prng } from '../local/dart-sandbox/prng';
import { validAnswer } from '../local/doubles/analysis-answers';
import { chatCompletion, type ModelServerDouble, startModelServerDouble } from '../local/doubles/model-server-double';
import { startPostgresServer } from '../test/support/postgres-server';
import { createDatabase } from '../test/support/test-database';
import { benchConfig } from './app';
import { createCleanups, createLog, envNumber, machineSection, runBenchmark, writeResultsPage } from './harness';

const log = createLog('bench:latency');
const cleanups = createCleanups(log);
const startedAt = performance.now();

/** The monitor's business-hours cadence (the default of DISCLOSURE_MONITOR_INTERVAL_MS), used whatever the hour of the run. */
const BUSY_POLL_MS = 5_000;
const DEFAULT_IDLE_POLL_MS = 60_000;
const MODEL_ANSWER_MS = 3_000;
const WATCHED_COMPANIES = 20;

/** Targets of issue 14, in ms. */
const TARGETS = { builtin: { p50: 10_000, p99: 30_000 }, model: { p50: 15_000, p99: undefined } } as const;

/** Notes when each filing's message reached the sender; answers every message `{ ok: true }`. */
class TimingPushSender extends PushSender {
  readonly enabled = true;
  readonly handedAt = new Map<string, number>();
  readonly messagesPerFiling = new Map<string, number>();
  readonly bodies = new Map<string, string>();

  send(messages: PushMessage[]): Promise<PushSendResult[]> {
    const now = performance.now();
    for (const message of messages) {
      const rceptNo = message.data.rcept_no;
      if (!this.handedAt.has(rceptNo)) this.handedAt.set(rceptNo, now);
      this.messagesPerFiling.set(rceptNo, (this.messagesPerFiling.get(rceptNo) ?? 0) + 1);
      this.bodies.set(rceptNo, message.body);
    }
    return Promise.resolve(messages.map(() => ({ ok: true })));
  }
}

const documentXml = (title: string, amount: number) =>
  `<?xml version="1.0" encoding="utf-8"?><DOCUMENT><DOCUMENT-NAME>${title}</DOCUMENT-NAME><BODY><SECTION-1><TITLE>${title}</TITLE>` +
  `<P>${`회사는 신규 시설투자를 위하여 금 ${amount.toLocaleString('en-US')}원을 투자하기로 결정하였습니다. `.repeat(20)}</P></SECTION-1></BODY></DOCUMENT>`;

interface Measured {
  name: string;
  analyzer: string;
  filings: number;
  latenciesMs: number[];
  withSummary: number;
  listCalls: number;
  durationMs: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];

/** One configuration: a fresh database and application, `filings` publications, each timed to its push. */
async function measure(
  name: 'builtin' | 'model',
  adminUrl: string,
  model: ModelServerDouble | null,
  filings: number,
  meanGapMs: number,
): Promise<Measured> {
  // A sandbox of its own: the filings of the previous configuration would queue ahead of these.
  const sandbox = await startDartSandbox({ seed: name === 'builtin' ? 1 : 2, companyCount: 200, pastDays: 3, filingsPerBusinessDay: 2 });
  const database = await createDatabase(adminUrl, `briefing_latency_${name}`);
  const sender = new TimingPushSender();
  const config = benchConfig({
    DATABASE_URL: database.url,
    DART_API_KEY: sandbox.apiKey,
    DART_API_BASE_URL: sandbox.baseUrl,
    DISCLOSURE_MONITOR_AUTO_START: 'true',
    ANALYSIS_SCHEDULER_AUTO_START: 'true',
    DISCLOSURE_MONITOR_INTERVAL_MS: String(BUSY_POLL_MS),
    // The business-hours cadence at any hour: what a filing meets on a weekday at 10:00 KST.
    DISCLOSURE_MONITOR_IDLE_INTERVAL_MS: String(BUSY_POLL_MS),
    ...(model === null
      ? { AI_PROVIDER: 'builtin' }
      : { AI_PROVIDER: 'openai', OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'bench-openai-key', OPENAI_MODEL: 'double-model' }),
  });
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config)] })
    .overrideProvider(PushSender)
    .useValue(sender)
    .compile();
  const app: INestApplication = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  await app.init();
  try {
    const db = app.get(DataSource);
    const companies = sandbox.control.companiesIn('Y').slice(0, WATCHED_COMPANIES);
    // One watcher with one token per company.
    await db.query(
      `WITH users AS (INSERT INTO users (premium_tier) SELECT 'none' FROM unnest($1::text[]) RETURNING id),
            numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM users),
            watched AS (
              INSERT INTO watch_stocks (user_id, corp_code, corp_name)
              SELECT u.id, c.corp_code, 'bench' FROM numbered u JOIN unnest($1::text[]) WITH ORDINALITY AS c(corp_code, n) USING (n)
              RETURNING user_id
            )
       INSERT INTO push_tokens (fcm_token, user_id, platform) SELECT 'latency-' || user_id, user_id, 'android' FROM watched`,
      [companies.map((company) => company.corpCode)],
    );
    // Whatever the sandbox holds for today is stored, analysed and announced before the clock starts.
    await waitFor(
      async () =>
        (
          await db.query<{ n: number }[]>(
            `SELECT (SELECT count(*) FROM push_fanouts WHERE status = 'PENDING')::int
                  + (SELECT count(*) FROM analyses WHERE status IN ('PENDING', 'PROCESSING'))::int AS n`,
          )
        )[0].n === 0 && sandbox.control.requests.some((r) => r.path.endsWith('list.json')),
      120_000,
    );
    const listCallsBefore = sandbox.control.requests.filter((r) => r.path.endsWith('list.json')).length;

    const prng = new Prng(name === 'builtin' ? 14 : 15);
    const random = () => prng.next();
    const publishedAt = new Map<string, number>();
    const began = performance.now();
    for (let i = 0; i < filings; i++) {
      // Exponential gaps: publications at random moments, a Poisson process.
      await new Promise((resolve) => setTimeout(resolve, -Math.log(1 - random()) * meanGapMs));
      const company = companies[Math.floor(random() * companies.length)];
      const filing = sandbox.control.publishFiling({ corp_code: company.corpCode, report_nm: '주요사항보고서(유상증자결정)' });
      sandbox.control.setDocument(filing.rcept_no, documentXml(filing.report_nm, 1_000_000 * (i + 1)));
      publishedAt.set(filing.rcept_no, performance.now());
    }
    await waitFor(() => [...publishedAt.keys()].every((rceptNo) => sender.handedAt.has(rceptNo)), 180_000);
    const durationMs = performance.now() - began;
    const listCalls = sandbox.control.requests.filter((r) => r.path.endsWith('list.json')).length - listCallsBefore;

    for (const rceptNo of publishedAt.keys()) {
      if (sender.messagesPerFiling.get(rceptNo) !== 1)
        throw new Error(`filing ${rceptNo}: ${sender.messagesPerFiling.get(rceptNo)} messages, expected 1`);
    }
    const summaries = await db.query<{ rcept_no: string; one_liner: string }[]>(
      "SELECT rcept_no, one_liner FROM analyses WHERE rcept_no = ANY($1) AND status = 'COMPLETED'",
      [[...publishedAt.keys()]],
    );
    const withSummary = summaries.filter((row) => sender.bodies.get(row.rcept_no) === row.one_liner).length;
    return {
      name,
      analyzer:
        model === null ? 'builtin (extractive, no model)' : `model double answering in ${MODEL_ANSWER_MS / 1000} s (OpenAI API over HTTP)`,
      filings,
      latenciesMs: [...publishedAt].map(([rceptNo, at]) => sender.handedAt.get(rceptNo)! - at).sort((a, b) => a - b),
      withSummary,
      listCalls,
      durationMs,
    };
  } finally {
    await app.close();
    await database.drop();
    await sandbox.close();
  }
}

async function waitFor(probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

function markdown(runs: Measured[], meanGapMs: number, postgres: string, totalMs: number): string {
  const weekday = monitorCallsPerDay(BUSY_POLL_MS, DEFAULT_IDLE_POLL_MS, true);
  const weekend = monitorCallsPerDay(BUSY_POLL_MS, DEFAULT_IDLE_POLL_MS, false);
  const targetLine = (run: Measured) => {
    const target = TARGETS[run.name as 'builtin' | 'model'];
    const p50 = percentile(run.latenciesMs, 0.5);
    const p99 = percentile(run.latenciesMs, 0.99);
    const parts = [`p50 ≤ ${seconds(target.p50)}: **${p50 <= target.p50 ? 'met' : 'NOT met'}** (${seconds(p50)})`];
    if (target.p99 !== undefined)
      parts.push(`p99 ≤ ${seconds(target.p99)}: **${p99 <= target.p99 ? 'met' : 'NOT met'}** (${seconds(p99)})`);
    return `- ${run.analyzer}: ${parts.join('; ')}.`;
  };
  return [
    '# Push latency benchmark',
    '',
    'What `npm run bench:latency` measures on this machine, and the numbers of its last run. The whole file is rewritten on each run.',
    '',
    `Last run: ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC, ${(totalMs / 1000).toFixed(0)} s in all.`,
    '',
    '## Summary',
    '',
    ...runs.map(targetLine),
    `- Upstream calls a day at the default cadence (one \`list.json\` a poll when nothing is new): **${int(weekday)} on a weekday** ` +
      `(12 h every ${BUSY_POLL_MS / 1000} s, 12 h every ${DEFAULT_IDLE_POLL_MS / 1000} s), ${int(weekend)} on a weekend day, against the key's limit of about 20,000. ` +
      `A new filing adds its document and, once a day per company, its profile.`,
    '',
    '| analyzer | filings | p50 | p95 | p99 | max | pushes carrying the one-liner | `list.json` calls during the run |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      (run) =>
        `| ${run.analyzer} | ${run.filings} | ${seconds(percentile(run.latenciesMs, 0.5))} | ${seconds(percentile(run.latenciesMs, 0.95))} | ` +
        `${seconds(percentile(run.latenciesMs, 0.99))} | ${seconds(run.latenciesMs.at(-1)!)} | ${run.withSummary} of ${run.filings} | ` +
        `${run.listCalls} in ${seconds(run.durationMs)} |`,
    ),
    '',
    '## What it does',
    '',
    "- Starts the disclosure-system sandbox over HTTP and, for each configuration, the real `AppModule` on a fresh database with its disclosure monitor, analysis scheduler and push dispatcher running. `PushSender` is the one double (FCM has no emulator): it notes when each filing's message is handed to it.",
    `- The monitor polls every ${BUSY_POLL_MS / 1000} s, the business-hours default, whatever the hour of the run (\`DISCLOSURE_MONITOR_IDLE_INTERVAL_MS\` is set to the same value); outside business hours a filing would wait up to ${DEFAULT_IDLE_POLL_MS / 1000} s more.`,
    `- ${WATCHED_COMPANIES} listed companies of the sandbox each have a watcher with one token. The sandbox publishes a filing of one of them (a major-event report with a readable document) at random moments: exponential gaps of ${seconds(meanGapMs)} on average, from a fixed seed.`,
    '- Latency is from the publication upstream to the message handed to the sender: the wait for the next poll, storing, the analysis (watched filings first), the fan-out that waits for it (`PUSH_SUMMARY_WAIT_MS`, 90 s), and the send. Each filing must reach its watcher exactly once.',
    `- Configurations: the builtin analyzer; and \`AI_PROVIDER=openai\` against the model server double, which answers every request after ${MODEL_ANSWER_MS / 1000} s with a valid analysis.`,
    '',
    ...machineSection(postgres),
    '',
    '## How to run',
    '',
    '```sh',
    'npm ci',
    'npm run bench:latency    # compiles bench/ and src/ into dist-bench/ with tsc, then runs dist-bench/bench/push-latency.js',
    '```',
    '',
    'Without `TEST_DATABASE_URL` or `DATABASE_URL` it starts an embedded PostgreSQL in a temporary directory. ' +
      '`BENCH_LATENCY_FILINGS` (default 100) and `BENCH_LATENCY_GAP_MS` (mean gap between publications, default 3000: half the capacity of the default two analyses at once with the 3 s model) change the load; ' +
      '`BENCH_WRITE_DOCS=false` prints without rewriting this file.',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const filings = envNumber('BENCH_LATENCY_FILINGS', 100, 10, 10_000);
  const meanGapMs = envNumber('BENCH_LATENCY_GAP_MS', 3_000, 10, 60_000);
  const server = await startPostgresServer('bench', log);
  cleanups.push({ label: `PostgreSQL (${server.origin})`, run: () => server.stop() });
  const model = await startModelServerDouble();
  cleanups.push({ label: 'model server double', run: () => model.close() });
  model.answerWith(async () => {
    await new Promise((resolve) => setTimeout(resolve, MODEL_ANSWER_MS));
    return chatCompletion(JSON.stringify(validAnswer()));
  });

  const runs: Measured[] = [];
  for (const [name, double] of [
    ['builtin', null],
    ['model', model],
  ] as const) {
    log(`${name}: publishing ${filings} filings, ${meanGapMs} ms apart on average`);
    const run = await measure(name, server.adminUrl, double, filings, meanGapMs);
    runs.push(run);
    log(
      `${name}: p50 ${seconds(percentile(run.latenciesMs, 0.5))}, p95 ${seconds(percentile(run.latenciesMs, 0.95))}, ` +
        `p99 ${seconds(percentile(run.latenciesMs, 0.99))}; ${run.withSummary} of ${run.filings} with the one-liner`,
    );
  }
  const text = markdown(runs, meanGapMs, server.origin, performance.now() - startedAt);
  await writeResultsPage('benchmarks-latency.md', () => text, log);
  process.stdout.write(`\n${text}\n`);
}

runBenchmark(main, log, cleanups);
