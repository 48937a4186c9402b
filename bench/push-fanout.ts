/**
 * `npm run bench:push`: the new-filing push fan-out, measured. The real AppModule on
 * its own database, 10,000 users watching one company with two tokens each (plus
 * watchers that must not be reached), a sender double that answers at once in place
 * of FCM. Each run stores one new filing as the monitor does and times it until the
 * last message is handed to the sender and until every delivery is recorded SENT,
 * sampling memory. Results: docs/benchmarks-push.md.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { kstDate } from '../src/common/korea-time';
import type { AppConfig } from '../src/app-config';
import { DisclosureIngestService } from '../src/disclosures/disclosure-ingest.service';
import { type PushMessage, PushSender, type PushSendResult } from '../src/push/push-sender';
import type { DartFiling } from '../src/upstream/dart/dart.types';
import { benchConfig } from './app';
import { startPostgresServer } from '../test/support/postgres-server';
import { createDatabase } from '../test/support/test-database';
import { createCleanups, createLog, envNumber, machineSection, runBenchmark, writeResultsPage } from './harness';

const CORP_CODE = '00999001';
const TOKENS_PER_WATCHER = 2;
const startedAt = performance.now();
const log = createLog('bench:push');
const cleanups = createCleanups(log);

/** Samples RSS and heap every few milliseconds; the event loop is busy during a run, so samples are as often as it allows. */
class MemorySampler {
  peakRss = 0;
  peakHeap = 0;
  samples = 0;
  private timer?: NodeJS.Timeout;

  start(): void {
    this.peakRss = 0;
    this.peakHeap = 0;
    this.samples = 0;
    this.sample();
    this.timer = setInterval(() => this.sample(), 5);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  private sample(): void {
    const usage = process.memoryUsage();
    this.peakRss = Math.max(this.peakRss, usage.rss);
    this.peakHeap = Math.max(this.peakHeap, usage.heapUsed);
    this.samples += 1;
  }
}

/**
 * Answers every message `{ ok: true }` at once and keeps only counts and call times, so
 * the memory measured is the service's, not the double's. That each token got exactly one
 * message is checked in the database: every delivery (one per token, by its primary key)
 * SENT, and as many messages handed over as there are deliveries.
 */
class InstantPushSender extends PushSender {
  readonly enabled = true;
  messages = 0;
  callTimes: number[] = [];

  send(messages: PushMessage[]): Promise<PushSendResult[]> {
    this.callTimes.push(performance.now());
    this.messages += messages.length;
    return Promise.resolve(messages.map(() => ({ ok: true })));
  }

  /** Forgets the previous run. */
  reset(): void {
    this.messages = 0;
    this.callTimes = [];
  }
}

interface Run {
  messages: number;
  batches: number;
  ingestMs: number;
  firstHandedMs: number;
  lastHandedMs: number;
  recordedMs: number;
  sendsPerSecond: number;
  baselineRss: number;
  baselineHeap: number;
  peakRss: number;
  peakHeap: number;
  samples: number;
}

interface Seeded {
  watchers: number;
  muted: number;
  elsewhere: number;
  tokens: number;
  ms: number;
}

/**
 * Users watching the company with notifications on (two tokens each), users watching
 * it with notifications off, and users watching other companies: every user has two
 * tokens of realistic length (FCM tokens are about 160 characters).
 */
async function seed(databaseUrl: string, watchers: number): Promise<Seeded> {
  const started = performance.now();
  // One transaction on a connection of its own, without the service's timeouts: a million rows take longer
  // than a request may (statement_timeout), and on a busy machine longer than the pool's client waits for
  // an answer (readTimeoutMs, 6 s).
  const db = new Client({ connectionString: databaseUrl, application_name: 'bench' });
  await db.connect();
  try {
    await db.query('BEGIN');
    await db.query('SET LOCAL statement_timeout = 0');
    const muted = Math.round(watchers / 5);
    const elsewhere = Math.round(watchers / 2);
    const ids = (
      await db.query<{ id: number }>("INSERT INTO users (premium_tier) SELECT 'none' FROM generate_series(1, $1) RETURNING id", [
        watchers + muted + elsewhere,
      ])
    ).rows.map((row) => row.id);
    await db.query(
      `INSERT INTO watch_stocks (user_id, corp_code, corp_name, notify_enabled)
     SELECT u.id,
            CASE WHEN u.n <= $2::int + $3::int THEN $4::text ELSE lpad((1000000 + u.n % 300)::text, 8, '0') END,
            'bench',
            NOT (u.n > $2::int AND u.n <= $2::int + $3::int)
     FROM unnest($1::int[]) WITH ORDINALITY AS u(id, n)`,
      [ids, watchers, muted, CORP_CODE],
    );
    await db.query(
      `INSERT INTO push_tokens (fcm_token, user_id, platform)
     SELECT 'bench:' || repeat(md5(u.id || ':' || k), 5), u.id, CASE k WHEN 1 THEN 'android' ELSE 'ios' END
     FROM unnest($1::int[]) AS u(id), generate_series(1, $2::int) AS k`,
      [ids, TOKENS_PER_WATCHER],
    );
    await db.query('COMMIT');
    await db.query('ANALYZE users, watch_stocks, push_tokens');
    return { watchers, muted, elsewhere, tokens: ids.length * TOKENS_PER_WATCHER, ms: performance.now() - started };
  } finally {
    await db.end();
  }
}

function filingOf(run: number): DartFiling {
  const today = kstDate(new Date());
  return {
    rcept_no: `${today}${String(900000 + run).padStart(6, '0')}`,
    corp_code: CORP_CODE,
    corp_name: '벤치전자',
    stock_code: '999001',
    corp_cls: 'Y',
    report_nm: '주요사항보고서(유상증자결정)',
    rcept_dt: today,
    flr_nm: '벤치전자',
    rm: '',
  };
}

async function until(probe: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function measure(app: INestApplication, sender: InstantPushSender, expected: number, run: number): Promise<Run> {
  const db = app.get(DataSource);
  const ingest = app.get(DisclosureIngestService);
  const sampler = new MemorySampler();
  const filing = filingOf(run);
  sender.reset();
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage();

  sampler.start();
  const begin = performance.now();
  await ingest.saveNew([filing], 'monitor');
  const stored = performance.now();
  await until(() => sender.messages >= expected, 120_000, `${expected} messages handed to the sender`);
  await until(
    async () =>
      (
        await db.query<{ n: number }[]>("SELECT count(*)::int AS n FROM push_deliveries WHERE rcept_no = $1 AND status = 'SENT'", [
          filing.rcept_no,
        ])
      )[0].n === expected,
    120_000,
    'every delivery recorded SENT',
  );
  const recorded = performance.now();
  sampler.stop();

  const [delivered] = await db.query<{ sent: number; tokens: number }[]>(
    "SELECT count(*) FILTER (WHERE status = 'SENT')::int AS sent, count(DISTINCT fcm_token)::int AS tokens FROM push_deliveries WHERE rcept_no = $1",
    [filing.rcept_no],
  );
  if (sender.messages !== expected || delivered.sent !== expected || delivered.tokens !== expected) {
    throw new Error(
      `expected ${expected} messages, one to each token, got ${sender.messages} messages and ${delivered.sent} SENT deliveries to ${delivered.tokens} tokens`,
    );
  }
  const lastHanded = sender.callTimes.at(-1)!;
  return {
    messages: expected,
    batches: sender.callTimes.length,
    ingestMs: stored - begin,
    firstHandedMs: sender.callTimes[0] - stored,
    lastHandedMs: lastHanded - stored,
    recordedMs: recorded - stored,
    sendsPerSecond: expected / ((lastHanded - stored) / 1000),
    baselineRss: baseline.rss,
    baselineHeap: baseline.heapUsed,
    peakRss: sampler.peakRss,
    peakHeap: sampler.peakHeap,
    samples: sampler.samples,
  };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n < 100 ? n.toFixed(1) : int(n)} ms`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
/** Concurrent claims split the last rows of a fan-out, so a run takes 40 or a few more batches. */
const batchRange = (runs: Run[]) => {
  const [least, most] = [Math.min(...runs.map((r) => r.batches)), Math.max(...runs.map((r) => r.batches))];
  return least === most ? String(least) : `${least}–${most}`;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

interface Report {
  startedAt: Date;
  config: AppConfig;
  seeded: Seeded;
  runs: Run[];
  postgres: string;
  postgresOrigin: string;
  totalMs: number;
  /** RSS of the idle application, booted and before seeding, after a forced garbage collection: the strict baseline. */
  idleRss: number;
}

/** Targets of the fan-out at scale (issue 14): the last send within 15 s, memory within 100 MiB of idle. */
const TARGET_LAST_SEND_MS = 15_000;
const TARGET_SCALE_WATCHERS = 100_000;
const TARGET_EXTRA_RSS = 100 * 2 ** 20;

function markdown(report: Report): string {
  const { runs, seeded } = report;
  const peakRss = Math.max(...runs.map((r) => r.peakRss));
  const mid = (pick: (run: Run) => number) => median(runs.map(pick));
  const out: string[] = [
    '# Push fan-out benchmark',
    '',
    'What `npm run bench:push` measures on this machine, and the numbers of its last run. The whole file is rewritten on each run.',
    '',
    `Last run: ${report.startedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC, ${(report.totalMs / 1000).toFixed(0)} s in all ` +
      `(${(seeded.ms / 1000).toFixed(1)} s of it seeding).`,
    '',
    '## Summary',
    '',
    `- ${int(seeded.watchers)} users watch one company with notifications on, ${TOKENS_PER_WATCHER} tokens each: ` +
      `**${int(runs[0].messages)} messages per filing**, handed to the sender in ${batchRange(runs)} sendEach calls of at most 500 ` +
      `(PUSH_CONCURRENCY=${report.config.push.concurrency}).`,
    `- Filing stored → last message handed to the sender: **${ms(mid((r) => r.lastHandedMs))}** ` +
      `(median of ${runs.length} runs), **${int(mid((r) => r.sendsPerSecond))} sends per second**.`,
    `- Filing stored → every delivery recorded SENT: ${ms(mid((r) => r.recordedMs))}.`,
    `- Peak memory during a fan-out: RSS ${mib(peakRss)}, **+${mib(peakRss - report.idleRss)} over the idle application** ` +
      `(${mib(report.idleRss)} booted, before seeding), heap used ` +
      `${mib(Math.max(...runs.map((r) => r.peakHeap)))} (at most +${mib(Math.max(...runs.map((r) => r.peakHeap - r.baselineHeap)))}).`,
    ...(seeded.watchers >= TARGET_SCALE_WATCHERS
      ? [
          `- Target, last send under ${TARGET_LAST_SEND_MS / 1000} s with ${int(TARGET_SCALE_WATCHERS)} watchers × ${TOKENS_PER_WATCHER} tokens: ` +
            `**${mid((r) => r.lastHandedMs) < TARGET_LAST_SEND_MS ? 'met' : 'NOT met'}** (median ${ms(mid((r) => r.lastHandedMs))}, slowest ${ms(Math.max(...runs.map((r) => r.lastHandedMs)))}).`,
          `- Target, peak RSS at most ${mib(TARGET_EXTRA_RSS)} above idle: **${peakRss - report.idleRss <= TARGET_EXTRA_RSS ? 'met' : 'NOT met'}**.`,
        ]
      : []),
    '',
    '| run | ingest (filing, analysis row, outbox) | stored → first batch handed | stored → last send handed | stored → all recorded SENT | sends/s | batches | peak RSS (idle) | peak heap used (idle) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      (r, i) =>
        `| ${i + 1} | ${ms(r.ingestMs)} | ${ms(r.firstHandedMs)} | ${ms(r.lastHandedMs)} | ${ms(r.recordedMs)} | ${int(r.sendsPerSecond)} | ${r.batches} | ` +
        `${mib(r.peakRss)} (${mib(r.baselineRss)}) | ${mib(r.peakHeap)} (${mib(r.baselineHeap)}) |`,
    ),
    '',
    '## What it does',
    '',
    `- Boots the real \`AppModule\` (migrations included) on a fresh database, with \`PushSender\` replaced by a double that answers every message \`{ ok: true }\` at once and keeps only counts and call times, so the numbers are the service's own cost: the expansion, the claims, the recording.`,
    `- Seeds with SQL ${int(seeded.watchers)} users watching company \`${CORP_CODE}\` with notifications on, ${int(seeded.muted)} watching it with notifications off, ` +
      `${int(seeded.elsewhere)} watching other companies; every user has ${TOKENS_PER_WATCHER} tokens of about 170 characters (${int(seeded.tokens)} tokens in all).`,
    "- Each run stores one new filing of the company through `DisclosureIngestService.saveNew(…, 'monitor')`, as the monitor does: the filing, its analysis row and its `push_fanouts` row in one transaction, then the `disclosure.created` event wakes the dispatcher.",
    '- Times are from the end of that transaction: to the first and the last `send` call of the double, and to the moment every delivery is `SENT` in the database. Sends per second are the messages over the time to the last send.',
    '- Memory is sampled every 5 ms (as often as the busy event loop allows) from just before the ingest to the last recorded delivery; the idle figure is the booted application’s RSS before seeding, after a forced garbage collection (what seeding leaves counts against the target); the table’s idle column is each run’s own start.',
    '- Every run checks that each token was handed exactly one message: as many messages as deliveries, every delivery (one per token by its primary key) `SENT`.',
    '',
    ...machineSection(`${report.postgres} (${report.postgresOrigin})`),
    '',
    'The application and PostgreSQL share these cores.',
    '',
    '## How to run',
    '',
    '```sh',
    'npm ci',
    'npm run bench:push    # compiles bench/ and src/ into dist-bench/ with tsc, then runs dist-bench/bench/push-fanout.js',
    '```',
    '',
    'Without `TEST_DATABASE_URL` or `DATABASE_URL` it starts an embedded PostgreSQL in a temporary directory and removes it afterwards; ' +
      'with one of them set it creates a database of its own on that server and drops it at the end. ' +
      '`BENCH_PUSH_WATCHERS` (default 100000), `BENCH_PUSH_RUNS` (default 3) and `PUSH_CONCURRENCY` change the load; ' +
      '`BENCH_WRITE_DOCS=false` prints without rewriting this file.',
    '',
  ];
  return out.join('\n');
}

async function main(): Promise<void> {
  const started = new Date();
  const watchers = envNumber('BENCH_PUSH_WATCHERS', 100_000, 1, 1_000_000);
  const runCount = envNumber('BENCH_PUSH_RUNS', 3, 1, 20);

  const server = await startPostgresServer('bench', log);
  cleanups.push({ label: `PostgreSQL (${server.origin})`, run: () => server.stop() });
  const database = await createDatabase(server.adminUrl, 'briefing_bench');
  cleanups.push({ label: `database ${database.name}`, run: () => database.drop() });
  log(`created database ${database.name}`);

  const config = benchConfig({
    DATABASE_URL: database.url,
    // Nothing upstream is called: the filings are stored directly.
    DART_API_KEY: 'bench-push',
    DART_API_BASE_URL: 'http://127.0.0.1:9/api',
    PUSH_CONCURRENCY: process.env.PUSH_CONCURRENCY,
    // The fan-out itself is measured: no analysis runs, so nothing waits for a one-liner.
    PUSH_SUMMARY_WAIT_MS: '0',
  });
  const sender = new InstantPushSender();
  // The one replaced provider: FCM has no emulator.
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config)] })
    .overrideProvider(PushSender)
    .useValue(sender)
    .compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  await app.init();
  cleanups.push({ label: 'application', run: () => app.close() });
  log('application started (migrations applied)');

  const db = app.get(DataSource);
  (globalThis as { gc?: () => void }).gc?.();
  const idleRss = process.memoryUsage().rss;
  const seeded = await seed(database.url, watchers);
  log(`seeded ${int(seeded.watchers + seeded.muted + seeded.elsewhere)} users and ${int(seeded.tokens)} tokens in ${ms(seeded.ms)}`);
  const postgres = (await db.query<{ version: string }[]>('SELECT version()'))[0].version.split(' on ')[0];

  const expected = watchers * TOKENS_PER_WATCHER;
  const runs: Run[] = [];
  for (let run = 1; run <= runCount; run++) {
    const result = await measure(app, sender, expected, run);
    runs.push(result);
    log(
      `run ${run}: ${int(result.messages)} messages in ${result.batches} batches; stored → last send ${ms(result.lastHandedMs)} ` +
        `(${int(result.sendsPerSecond)}/s), → all recorded ${ms(result.recordedMs)}; peak RSS ${mib(result.peakRss)}, heap ${mib(result.peakHeap)}`,
    );
  }

  const text = markdown({
    startedAt: started,
    config,
    seeded,
    runs,
    postgres,
    postgresOrigin: server.origin,
    totalMs: performance.now() - startedAt,
    idleRss,
  });
  await writeResultsPage('benchmarks-push.md', () => text, log);
  process.stdout.write(`\n${text}\n`);
}

runBenchmark(main, log, cleanups);
