/**
 * `npm run bench:push`: the new-filing push fan-out at the scale of a popular stock, measured.
 * The real AppModule on its own database, 500,000 users watching one company with two tokens
 * each (plus watchers that must not be reached), and a sender double in place of FCM that
 * answers at once but enforces FCM's default quota, 600,000 accepted messages in any rolling
 * minute, answering QUOTA_EXCEEDED beyond it. Each run stores one new filing as the monitor
 * does and times it until the last message is accepted and until every delivery is recorded
 * SENT, counting quota refusals and sampling memory. Results: docs/benchmarks-push.md.
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
import { type PushMessage, PushSender, type PushSendResult, QUOTA_EXCEEDED_CODE } from '../src/push/push-sender';
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

/** FCM's quota is per minute (minutes not aligned to the clock). */
const QUOTA_WINDOW_MS = 60_000;

/**
 * FCM with its per-project quota, answering at once: accepts messages while fewer than `quota`
 * were accepted in the rolling minute before the call, and answers the rest of the call as
 * firebase-admin reports FCM's QUOTA_EXCEEDED, without a retry time (firebase-admin keeps none).
 * Refused messages do not count against the quota (FCM counts no 429). A rolling minute is
 * stricter than FCM's minutes, which are fixed but not aligned to the clock: whatever their
 * phase, each of them is one of the rolling minutes, so a sender that passes this double passes
 * FCM at any phase. `quota` 0: no quota.
 *
 * Keeps only counts and call times, so the memory measured is the service's, not the double's.
 * That each token got exactly one message is checked in the database: every delivery (one per
 * token, by its primary key) SENT, and as many messages accepted as there are deliveries.
 */
class QuotaPushSender extends PushSender {
  readonly enabled = true;
  accepted = 0;
  refused = 0;
  /** Per call that accepted messages: when, and how many. */
  callTimes: number[] = [];
  callAccepted: number[] = [];
  private windowStart = 0;
  private inWindow = 0;
  private waiter?: { count: number; resolve: () => void };

  constructor(private readonly quota: number) {
    super();
  }

  send(messages: PushMessage[]): Promise<PushSendResult[]> {
    const now = performance.now();
    while (this.windowStart < this.callTimes.length && this.callTimes[this.windowStart] <= now - QUOTA_WINDOW_MS) {
      this.inWindow -= this.callAccepted[this.windowStart++];
    }
    const take = this.quota === 0 ? messages.length : Math.max(0, Math.min(messages.length, this.quota - this.inWindow));
    if (take > 0) {
      this.callTimes.push(now);
      this.callAccepted.push(take);
      this.inWindow += take;
      this.accepted += take;
    }
    this.refused += messages.length - take;
    if (this.waiter && this.accepted >= this.waiter.count) this.waiter.resolve();
    return Promise.resolve(
      messages.map((_, i): PushSendResult => (i < take ? { ok: true } : { ok: false, failure: 'transient', error: QUOTA_REFUSAL })),
    );
  }

  /** Resolves once `count` messages were accepted in all. */
  whenAccepted(count: number): Promise<void> {
    if (this.accepted >= count) return Promise.resolve();
    return new Promise((resolve) => (this.waiter = { count, resolve }));
  }

  /** Forgets the previous run's counts; its calls stay in the rolling minute, as they would at FCM. */
  reset(): void {
    this.accepted = 0;
    this.refused = 0;
    this.waiter = undefined;
  }

  /** The most messages accepted in any rolling minute, over the calls from `from` on. */
  mostInAnyMinute(from: number): number {
    let most = 0;
    let sum = 0;
    for (let first = from, last = from; last < this.callTimes.length; last++) {
      sum += this.callAccepted[last];
      while (this.callTimes[first] <= this.callTimes[last] - QUOTA_WINDOW_MS) sum -= this.callAccepted[first++];
      most = Math.max(most, sum);
    }
    return most;
  }
}

/** What firebase-admin makes of FCM's QUOTA_EXCEEDED (classifyFirebaseError's shape). */
const QUOTA_REFUSAL = `${QUOTA_EXCEEDED_CODE}: Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute'`;

interface Run {
  messages: number;
  batches: number;
  /** QUOTA_EXCEEDED answers the double gave. */
  refused: number;
  /** The most messages accepted in any rolling minute. */
  mostInAMinute: number;
  /** Messages accepted in each 10-second interval after the filing was stored. */
  perInterval: number[];
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
 * tokens of realistic length (FCM tokens are about 160 characters). Set-based SQL only: no
 * id leaves the database.
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
    await db.query('SET LOCAL idle_in_transaction_session_timeout = 0');
    const muted = Math.round(watchers / 5);
    const elsewhere = Math.round(watchers / 2);
    await db.query('CREATE TEMPORARY TABLE bench_users (id integer NOT NULL, n bigint NOT NULL) ON COMMIT DROP');
    await db.query(
      `WITH created AS (INSERT INTO users (premium_tier) SELECT 'none' FROM generate_series(1, $1) RETURNING id)
       INSERT INTO bench_users (id, n) SELECT id, row_number() OVER (ORDER BY id) FROM created`,
      [watchers + muted + elsewhere],
    );
    await db.query(
      `INSERT INTO watch_stocks (user_id, corp_code, corp_name, notify_enabled)
       SELECT u.id,
              CASE WHEN u.n <= $1::int + $2::int THEN $3::text ELSE lpad((1000000 + u.n % 300)::text, 8, '0') END,
              'bench',
              NOT (u.n > $1::int AND u.n <= $1::int + $2::int)
       FROM bench_users u`,
      [watchers, muted, CORP_CODE],
    );
    await db.query(
      `INSERT INTO push_tokens (fcm_token, user_id, platform)
       SELECT 'bench:' || repeat(md5(u.id || ':' || k), 5), u.id, CASE k WHEN 1 THEN 'android' ELSE 'ios' END
       FROM bench_users u, generate_series(1, $1::int) AS k`,
      [TOKENS_PER_WATCHER],
    );
    await db.query('COMMIT');
    await db.query('ANALYZE users, watch_stocks, push_tokens');
    return { watchers, muted, elsewhere, tokens: (watchers + muted + elsewhere) * TOKENS_PER_WATCHER, ms: performance.now() - started };
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
    // A count over a million deliveries is work for PostgreSQL too: not too often.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function measure(app: INestApplication, sender: QuotaPushSender, expected: number, run: number, waitMs: number): Promise<Run> {
  const db = app.get(DataSource);
  const ingest = app.get(DisclosureIngestService);
  const sampler = new MemorySampler();
  const filing = filingOf(run);
  sender.reset();
  const firstCall = sender.callTimes.length;
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage();

  sampler.start();
  const begin = performance.now();
  await ingest.saveNew([filing], 'monitor');
  const stored = performance.now();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    sender.whenAccepted(expected),
    new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${expected} messages accepted (${sender.accepted} so far)`)),
        waitMs,
      );
    }),
  ]).finally(() => clearTimeout(timer));
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
  if (sender.accepted !== expected || delivered.sent !== expected || delivered.tokens !== expected) {
    throw new Error(
      `expected ${expected} messages, one to each token, got ${sender.accepted} accepted and ${delivered.sent} SENT deliveries to ${delivered.tokens} tokens`,
    );
  }
  const times = sender.callTimes.slice(firstCall);
  const accepted = sender.callAccepted.slice(firstCall);
  const lastHanded = times.at(-1)!;
  const perInterval: number[] = [];
  times.forEach((at, i) => {
    const interval = Math.max(0, Math.floor((at - stored) / INTERVAL_MS));
    while (perInterval.length <= interval) perInterval.push(0);
    perInterval[interval] += accepted[i];
  });
  return {
    messages: expected,
    batches: times.length,
    refused: sender.refused,
    mostInAMinute: sender.mostInAnyMinute(firstCall),
    perInterval,
    ingestMs: stored - begin,
    firstHandedMs: times[0] - stored,
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

/** The width of the intervals of "sends per second over time". */
const INTERVAL_MS = 10_000;

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n < 100 ? n.toFixed(1) : int(n)} ms`;
const seconds = (n: number) => `${(n / 1000).toFixed(1)} s`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
/** Concurrent claims split the last rows of a fan-out, so a run takes a few more batches than messages / 500. */
const batchRange = (runs: Run[]) => {
  const [least, most] = [Math.min(...runs.map((r) => r.batches)), Math.max(...runs.map((r) => r.batches))];
  return least === most ? String(least) : `${least}–${most}`;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');

interface Report {
  startedAt: Date;
  config: AppConfig;
  seeded: Seeded;
  runs: Run[];
  /** The double's quota per rolling minute; 0: none. */
  quota: number;
  postgres: string;
  postgresOrigin: string;
  totalMs: number;
  /** RSS of the idle application, booted and before seeding, after a forced garbage collection: the strict baseline. */
  idleRss: number;
}

/**
 * Targets of the fan-out at the scale of a popular stock (issue 28): the last message handed
 * over within 10 % of the time the quota allows (messages / quota per minute), no
 * QUOTA_EXCEEDED (the service keeps within the quota by itself), memory within 150 MB of idle.
 */
const TARGET_SLACK = 1.1;
const TARGET_EXTRA_RSS = 150e6;

/** The time the quota allows for `messages`: at `quota` a minute, evenly. */
const quotaTimeMs = (messages: number, quota: number) => (messages / quota) * QUOTA_WINDOW_MS;

function markdown(report: Report): string {
  const { runs, seeded, quota } = report;
  const peakRss = Math.max(...runs.map((r) => r.peakRss));
  const mid = (pick: (run: Run) => number) => median(runs.map(pick));
  const messages = runs[0].messages;
  const allowedMs = quota > 0 ? quotaTimeMs(messages, quota) : 0;
  const slowest = Math.max(...runs.map((r) => r.lastHandedMs));
  const refused = runs.reduce((sum, r) => sum + r.refused, 0);
  const shown = runs[0];
  const budget = report.config.push.messagesPerMinute;
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
      `**${int(messages)} messages per filing**, handed to the sender in ${batchRange(runs)} sendEach calls of at most 500 ` +
      `(PUSH_CONCURRENCY=${report.config.push.concurrency}, one instance).`,
    quota > 0
      ? `- The sender double enforces FCM's default quota: **${int(quota)} messages in any rolling minute**, QUOTA_EXCEEDED beyond it; ` +
        `the service's budget is PUSH_MESSAGES_PER_MINUTE=${int(budget)}. At that quota ${int(messages)} messages take ${seconds(allowedMs)}.`
      : `- The sender double enforces no quota (BENCH_PUSH_QUOTA=0): the service's own speed, its budget PUSH_MESSAGES_PER_MINUTE=${int(budget)}.`,
    `- Filing stored → last message handed to the sender: **${ms(mid((r) => r.lastHandedMs))}** ` +
      `(median of ${runs.length} run${runs.length === 1 ? '' : 's'}), **${int(mid((r) => r.sendsPerSecond))} sends per second**; ` +
      `the most accepted in any rolling minute: ${int(Math.max(...runs.map((r) => r.mostInAMinute)))}.`,
    `- QUOTA_EXCEEDED answers received: **${int(refused)}**.`,
    `- Filing stored → every delivery recorded SENT: ${ms(mid((r) => r.recordedMs))}.`,
    `- Peak memory during a fan-out: RSS ${mib(peakRss)}, **+${mb(peakRss - report.idleRss)} (${mib(peakRss - report.idleRss)}) over the idle application** ` +
      `(${mib(report.idleRss)} booted, before seeding), heap used ` +
      `${mib(Math.max(...runs.map((r) => r.peakHeap)))} (at most +${mib(Math.max(...runs.map((r) => r.peakHeap - r.baselineHeap)))}).`,
    ...(quota > 0
      ? [
          `- Target, last message handed within ${Math.round((TARGET_SLACK - 1) * 100)} % of the time the quota allows ` +
            `(${seconds(TARGET_SLACK * allowedMs)}): **${met(slowest <= TARGET_SLACK * allowedMs)}** (slowest ${seconds(slowest)}, ` +
            `${((slowest / allowedMs) * 100).toFixed(1)} % of ${seconds(allowedMs)}).`,
          `- Target, no QUOTA_EXCEEDED (the service keeps within the quota by itself): **${met(refused === 0)}**.`,
        ]
      : []),
    `- Target, peak RSS at most ${mb(TARGET_EXTRA_RSS)} above idle: **${met(peakRss - report.idleRss <= TARGET_EXTRA_RSS)}**.`,
    '',
    '| run | ingest (filing, analysis row, outbox) | stored → first batch handed | stored → last send handed | stored → all recorded SENT | sends/s | most in a rolling minute | QUOTA_EXCEEDED | batches | peak RSS (idle) | peak heap used (idle) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      (r, i) =>
        `| ${i + 1} | ${ms(r.ingestMs)} | ${ms(r.firstHandedMs)} | ${ms(r.lastHandedMs)} | ${ms(r.recordedMs)} | ${int(r.sendsPerSecond)} | ${int(r.mostInAMinute)} | ${int(r.refused)} | ${r.batches} | ` +
        `${mib(r.peakRss)} (${mib(r.baselineRss)}) | ${mib(r.peakHeap)} (${mib(r.baselineHeap)}) |`,
    ),
    '',
    '## Sends per second over time',
    '',
    `Run 1, messages accepted by the double in each ${INTERVAL_MS / 1000}-second interval after the filing was stored` +
      (quota > 0 ? ` (the quota's even pace: ${int(quota / 60)} a second).` : '.'),
    '',
    '| interval | messages accepted | per second | accepted so far |',
    '| --- | ---: | ---: | ---: |',
    ...(() => {
      let sum = 0;
      return shown.perInterval.map((count, i) => {
        sum += count;
        return `| ${(i * INTERVAL_MS) / 1000}–${((i + 1) * INTERVAL_MS) / 1000} s | ${int(count)} | ${int(count / (INTERVAL_MS / 1000))} | ${int(sum)} |`;
      });
    })(),
    '',
    '## What it does',
    '',
    `- Boots the real \`AppModule\` (migrations included) on a fresh database, with \`PushSender\` replaced by a double of FCM that answers at once and keeps only counts and call times, so the numbers are the service's own cost (the expansion, the claims, the budget, the recording) and its pacing.`,
    `- The double enforces FCM's per-project quota${quota > 0 ? ` of ${int(quota)} messages a minute` : ' (here none)'}: a message is accepted while fewer than the quota were accepted in the rolling minute before its call, and answered \`${QUOTA_EXCEEDED_CODE}\` (what firebase-admin makes of FCM's \`QUOTA_EXCEEDED\`) beyond it, without a retry time, as firebase-admin reports it; refusals do not count against the quota, as FCM counts no 429. FCM counts fixed minutes that are not aligned to the clock; a rolling minute is stricter, since every such minute, whatever its phase, is one of the rolling minutes.`,
    `- The service keeps within the quota by itself: before each \`sendEach\` it books the batch in its fleet-wide send budget (\`PUSH_MESSAGES_PER_MINUTE\`, a row in PostgreSQL, docs/watchlist-and-push.md, "The FCM quota") and sleeps until its moment; a QUOTA_EXCEEDED answer would pause its sending for a minute.`,
    `- Seeds with set-based SQL ${int(seeded.watchers)} users watching company \`${CORP_CODE}\` with notifications on, ${int(seeded.muted)} watching it with notifications off, ` +
      `${int(seeded.elsewhere)} watching other companies; every user has ${TOKENS_PER_WATCHER} tokens of about 170 characters (${int(seeded.tokens)} tokens in all).`,
    "- Each run stores one new filing of the company through `DisclosureIngestService.saveNew(…, 'monitor')`, as the monitor does: the filing, its analysis row and its `push_fanouts` row in one transaction, then the `disclosure.created` event wakes the dispatcher.",
    '- Times are from the end of that transaction: to the first and the last `send` call that had a message accepted, and to the moment every delivery is `SENT` in the database. Sends per second are the messages over the time to the last send.',
    '- Memory is sampled every 5 ms (as often as the busy event loop allows) from just before the ingest to the last recorded delivery; the idle figure is the booted application’s RSS before seeding, after a forced garbage collection (what seeding leaves counts against the target); the table’s idle column is each run’s own start. MB are 10^6 bytes, MiB 2^20.',
    '- Every run checks that each token was handed exactly one message: as many messages accepted as deliveries, every delivery (one per token by its primary key) `SENT`.',
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
    'BENCH_PUSH_WATCHERS=100000 BENCH_PUSH_RUNS=3 npm run bench:push    # the faster configuration: 200,000 messages a run',
    '```',
    '',
    'Without `TEST_DATABASE_URL` or `DATABASE_URL` it starts an embedded PostgreSQL in a temporary directory and removes it afterwards; ' +
      'with one of them set it creates a database of its own on that server and drops it at the end. ' +
      "`BENCH_PUSH_WATCHERS` (default 500000), `BENCH_PUSH_RUNS` (default 1), `BENCH_PUSH_QUOTA` (the double's quota a minute, default 600000; 0: none, " +
      "to measure the service alone), `PUSH_MESSAGES_PER_MINUTE` (default: the double's quota) and `PUSH_CONCURRENCY` change the load; " +
      '`BENCH_WRITE_DOCS=false` prints without rewriting this file.',
    '',
  ];
  return out.join('\n');
}

async function main(): Promise<void> {
  const started = new Date();
  const watchers = envNumber('BENCH_PUSH_WATCHERS', 500_000, 1, 1_000_000);
  const runCount = envNumber('BENCH_PUSH_RUNS', 1, 1, 20);
  const quota = envNumber('BENCH_PUSH_QUOTA', 600_000, 0, 1_000_000_000);

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
    // The service's budget is the quota it is told of; without a quota, one that never holds it back.
    PUSH_MESSAGES_PER_MINUTE: process.env.PUSH_MESSAGES_PER_MINUTE ?? String(quota > 0 ? quota : 1_000_000_000),
    // The fan-out itself is measured: no analysis runs, so nothing waits for a one-liner.
    PUSH_SUMMARY_WAIT_MS: '0',
  });
  const sender = new QuotaPushSender(quota);
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
  // Three times what the quota allows, and two minutes more, before a run is given up.
  const waitMs = 3 * (quota > 0 ? quotaTimeMs(expected, quota) : 0) + 120_000;
  const runs: Run[] = [];
  for (let run = 1; run <= runCount; run++) {
    const result = await measure(app, sender, expected, run, waitMs);
    runs.push(result);
    log(
      `run ${run}: ${int(result.messages)} messages in ${result.batches} batches, ${int(result.refused)} QUOTA_EXCEEDED; stored → last send ${ms(result.lastHandedMs)} ` +
        `(${int(result.sendsPerSecond)}/s, at most ${int(result.mostInAMinute)} in a rolling minute), → all recorded ${ms(result.recordedMs)}; ` +
        `peak RSS ${mib(result.peakRss)} (+${mb(result.peakRss - idleRss)} over idle), heap ${mib(result.peakHeap)}`,
    );
  }

  const text = markdown({
    startedAt: started,
    config,
    seeded,
    runs,
    quota,
    postgres,
    postgresOrigin: server.origin,
    totalMs: performance.now() - startedAt,
    idleRss,
  });
  await writeResultsPage('benchmarks-push.md', () => text, log);
  process.stdout.write(`\n${text}\n`);
}

runBenchmark(main, log, cleanups);
