/**
 * `npm run soak`: the whole system through a compressed trading day under faults. Three instances
 * (each a process of its own, started as production starts) on one PostgreSQL behind a round-robin
 * proxy; the disclosure-system sandbox publishing a day's filings; a model double; a push recorder
 * standing for FCM; users reading and writing from a process of their own. Faults on a schedule;
 * invariants checked at the end from the database, the recorded messages and the journal of writes.
 * Results: docs/soak.md and docs/soak-timeline.svg. Exit code 1 when an invariant breaks.
 */
import 'reflect-metadata';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import * as fs from 'node:fs/promises';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { buildMigrationDataSourceOptions } from '../../src/database/data-source-options';
import { runMigrationsLocked } from '../../src/database/migrate';
import { startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { Prng } from '../../local/dart-sandbox/prng';
import { ChildRpc } from '../child-rpc';
import { createCleanups, createLog, runBenchmark, writeResultsPage } from '../harness';
import { DartFronts } from './dart-front';
import { filingSchedule } from './day-shape';
import { filingDocument } from './documents';
import type { EdgeRequest, EdgeResponses, JournalEntry } from './edge-protocol';
import { Fleet } from './fleet';
import { evaluate } from './invariants';
import { SoakModel } from './model';
import { startSoakPostgres } from './postgres';
import { PushRecorder } from './push-recorder';
import { invariantTable, soakPage } from './report';
import {
  type BacklogSample,
  type DatabaseState,
  type DeliveryRow,
  type FaultWindow,
  parseRun,
  type PublishedFiling,
  type RunData,
  serialiseRun,
} from './run-data';
import { CAPACITY, popularity, seed, WeightedPicker } from './seed';
import { isDoomedToken, readSettings, SEEDED_TOKEN_PREFIX, type SoakSettings } from './settings';
import { timelineSvg } from './timeline';

const log = createLog('soak');
const cleanups = createCleanups(log);
const startedAt = performance.now();
const startedAtWall = Date.now();
const INSTANCES = 3;
const AD_UNIT = '5224354917';
const AD_KEY_ID = 3335741209;
/** The job whose holder is killed: it runs the monitor every instance depends on. */
const MONITOR_JOB = 'disclosure-monitor';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const int = (n: number) => Math.round(n).toLocaleString('en-US');

async function waitFor(probe: () => Promise<boolean>, timeoutMs: number, everyMs = 1_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The rewarded-ad network's key server: publishes the public half of the soak's signing key. */
async function startAdKeyServer(): Promise<{ url: string; privatePem: string; close: () => Promise<void> }> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const keys = JSON.stringify({
    keys: [
      {
        keyId: AD_KEY_ID,
        pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        base64: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      },
    ],
  });
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(keys);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/admob/reward/verifier-keys.json`,
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const BACKLOG_SQL = `SELECT (SELECT count(*) FROM analyses WHERE status IN ('PENDING', 'PROCESSING'))::int AS analyses,
  (SELECT count(*) FROM push_fanouts WHERE status = 'PENDING')::int AS fanouts,
  (SELECT count(*) FROM push_deliveries WHERE status = 'PENDING')::int AS pending,
  (SELECT count(*) FROM push_deliveries WHERE status = 'HELD')::int AS held,
  (SELECT count(*) FROM push_deliveries WHERE status = 'SENDING')::int AS sending`;

async function backlog(pool: Pool): Promise<BacklogSample> {
  const { rows } = await pool.query<Omit<BacklogSample, 'at'>>(BACKLOG_SQL);
  return { at: Date.now(), ...rows[0] };
}

async function collect(pool: Pool, filings: PublishedFiling[], journal: JournalEntry[]): Promise<DatabaseState> {
  const rceptNos = filings.map((filing) => filing.rceptNo);
  const tokens = [...new Set(journal.filter((entry) => entry.token !== undefined).map((entry) => entry.token!))];
  const watched = journal.filter((entry) => entry.corp !== undefined);
  const q = async <Row extends object>(sql: string, params: unknown[] = []) => (await pool.query<Row>(sql, params)).rows;
  const disclosures = await q<{ rcept_no: string; created_at: Date }>(
    'SELECT rcept_no, created_at FROM disclosures WHERE rcept_no = ANY($1)',
    [rceptNos],
  );
  const analyses = await q<{ rcept_no: string; status: string; one_liner: string | null; attempts: number; doc_length: number | null }>(
    'SELECT rcept_no, status, one_liner, attempts, doc_length FROM analyses WHERE rcept_no = ANY($1)',
    [rceptNos],
  );
  const fanouts = await q<{ rcept_no: string; status: string; expanded_at: Date | null }>(
    'SELECT rcept_no, status, expanded_at FROM push_fanouts WHERE rcept_no = ANY($1)',
    [rceptNos],
  );
  return {
    disclosures: new Map(disclosures.map((row) => [row.rcept_no, { createdAt: row.created_at.getTime() }])),
    analyses: new Map(
      analyses.map((row) => [
        row.rcept_no,
        { status: row.status, oneLiner: row.one_liner, attempts: row.attempts, docLength: row.doc_length },
      ]),
    ),
    fanouts: new Map(fanouts.map((row) => [row.rcept_no, { status: row.status, expandedAt: row.expanded_at?.getTime() ?? null }])),
    deliveries: await q<DeliveryRow>(
      'SELECT rcept_no, fcm_token, user_id, status, created_at FROM push_deliveries WHERE rcept_no = ANY($1)',
      [rceptNos],
    ),
    revealed: await q('SELECT user_id, rcept_no, revealed_at FROM revealed_disclosures'),
    quota: await q('SELECT user_id, week_start, weekly_used FROM quota_usage'),
    adRewards: await q('SELECT transaction_id, user_id, granted_at FROM ad_reward_transactions'),
    shortFilings: new Set(
      (await q<{ rcept_no: string }>('SELECT rcept_no FROM analyses WHERE doc_length < 1000')).map((row) => row.rcept_no),
    ),
    dartBudget: await q('SELECT day::text AS day, used FROM dart_budget_days'),
    finalOwners: new Map(
      (
        await q<{ fcm_token: string; user_id: number }>('SELECT fcm_token, user_id FROM push_tokens WHERE fcm_token = ANY($1)', [tokens])
      ).map((row) => [row.fcm_token, row.user_id]),
    ),
    finalWatches: new Map(
      (
        await q<{ user_id: number; corp_code: string; notify_enabled: boolean }>(
          `SELECT w.user_id, w.corp_code, w.notify_enabled FROM watch_stocks w
           JOIN unnest($1::int[], $2::text[]) AS x(u, c) ON w.user_id = x.u AND w.corp_code = x.c`,
          [watched.map((entry) => entry.user), watched.map((entry) => entry.corp)],
        )
      ).map((row) => [`${row.user_id}:${row.corp_code}`, row.notify_enabled]),
    ),
  };
}

async function main(): Promise<void> {
  const settings = readSettings();
  const logDir = await fs.mkdtemp(path.join(os.tmpdir(), 'briefing-soak-'));
  log(
    `${settings.runMs / 60_000} min, ${int(settings.filings)} filings, ${int(settings.users)} users, ` +
      `${settings.readsPerSecond} reads/s and ${settings.writesPerSecond} writes/s; instance logs in ${logDir}`,
  );

  const pg = await startSoakPostgres(log);
  cleanups.push({ label: `PostgreSQL (${pg.origin})`, run: () => pg.close() });
  const migrations = await new DataSource(buildMigrationDataSourceOptions(pg.url)).initialize();
  try {
    await runMigrationsLocked(migrations);
  } finally {
    await migrations.destroy();
  }

  const sandbox = await startDartSandbox({ seed: settings.seed, companyCount: settings.companies, pastDays: 3, filingsPerBusinessDay: 20 });
  cleanups.push({ label: 'disclosure-system sandbox', run: () => sandbox.close() });
  const documents = new Prng(settings.seed + 3);
  // Today's filings from before the run get readable documents too: the warm-up analyses them.
  for (const filing of sandbox.control.filings().filter((each) => each.rcept_dt === sandbox.control.today())) {
    sandbox.control.setDocument(filing.rcept_no, filingDocument(filing.rcept_no, filing.report_nm, documents));
  }
  const fronts = new DartFronts(sandbox.baseUrl);
  const frontUrls = await fronts.start(INSTANCES);
  cleanups.push({ label: 'disclosure-system fronts', run: () => fronts.close() });

  const published = new Map<string, PublishedFiling>();
  const model = new SoakModel(settings.seed + 1, (rceptNo) => published.has(rceptNo));
  await model.start();
  cleanups.push({ label: 'model double', run: () => model.close() });
  const recorder = new PushRecorder(settings.unregisteredShare, settings.seed + 2);
  await recorder.start();
  cleanups.push({ label: 'push recorder', run: () => recorder.close() });
  const adKeys = await startAdKeyServer();
  cleanups.push({ label: 'ad key server', run: () => adKeys.close() });

  // The users. Quiet windows end before the run does: the run starts later than now.
  const seededAt = Date.now();
  const quietEndLimit = seededAt + settings.runMs - Math.min(120_000, settings.runMs * 0.2);
  const listed = [...sandbox.control.companiesIn('Y'), ...sandbox.control.companiesIn('K')];
  const seedClient = new Client({ connectionString: pg.url });
  await seedClient.connect();
  const seeding = performance.now();
  const seeded = await seed(
    seedClient,
    { ...settings, seed: settings.seed, runStart: seededAt, quietEndLimit },
    { listed: listed.filter((company) => company.stockCode !== null) },
  ).finally(() => seedClient.end());
  log(
    `seeded ${int(listed.length)} stocks, ${int(seeded.userIds.length)} users, ${int(seeded.watches.user.length)} watch entries, ` +
      `${int(seeded.tokens.token.length)} tokens, ${int(seeded.quietUsers)} quiet windows in ${Math.round(performance.now() - seeding)} ms`,
  );

  const ports = await Promise.all(Array.from({ length: INSTANCES }, () => freePort()));
  const secrets = { jwt: randomBytes(32).toString('hex'), admin: randomBytes(24).toString('hex') };
  const env = (index: number): Record<string, string> => ({
    APP_ENV: 'local',
    LOG_LEVEL: settings.logLevel,
    DATA_DIR: path.join(logDir, 'data'),
    JWT_SECRET: secrets.jwt,
    ADMIN_KEY: secrets.admin,
    DATABASE_URL: pg.url,
    DART_API_BASE_URL: frontUrls[index],
    DART_API_KEY: sandbox.apiKey,
    DART_REQUESTS_PER_MINUTE: String(settings.dartPerMinute),
    DART_REQUESTS_PER_DAY: String(settings.dartPerDay),
    DISCLOSURE_MONITOR_AUTO_START: 'true',
    ANALYSIS_SCHEDULER_AUTO_START: 'true',
    STOCK_SYNC_SCHEDULER_ENABLED: 'true',
    // The business-hours cadence at any hour of the run.
    DISCLOSURE_MONITOR_INTERVAL_MS: String(settings.monitorIntervalMs),
    DISCLOSURE_MONITOR_IDLE_INTERVAL_MS: String(settings.monitorIntervalMs),
    LEADER_TAKEOVER_MS: String(settings.leaderTakeoverMs),
    AI_PROVIDER: 'openai',
    OPENAI_BASE_URL: model.baseUrl(index),
    OPENAI_API_KEY: 'soak-openai-key',
    OPENAI_MODEL: 'double-model',
    ANALYSIS_CONCURRENCY: String(settings.analysisConcurrency),
    ANALYSIS_LEASE_MS: String(settings.analysisLeaseMs),
    PUSH_LEASE_MS: String(settings.pushLeaseMs),
    ADMOB_VERIFIER_KEYS_URL: adKeys.url,
    ADMOB_AD_UNIT_IDS: `ca-app-pub-3940256099942544/${AD_UNIT}`,
    SOAK_RECORDER_URL: recorder.url,
  });
  const fleet = new Fleet(ports, env, logDir, log);
  cleanups.push({ label: 'the instances', run: () => fleet.stopAll() });
  await fleet.start(0);
  await Promise.all([fleet.start(1), fleet.start(2)]);
  log(`three instances serve on ports ${ports.join(', ')}`);

  const edge = ChildRpc.fork<EdgeRequest, unknown>('soak edge', 'soak/edge.js');
  cleanups.push({ label: 'the edge (proxy and users)', run: () => edge.close() });
  const doomed = seeded.tokens.token.filter((token) => recorder.isDoomed(token));
  const { proxyUrl } = (await edge.call({
    kind: 'start',
    setup: {
      backends: ports,
      jwtSecret: secrets.jwt,
      adKeyPem: adKeys.privatePem,
      adKeyId: AD_KEY_ID,
      adUnit: AD_UNIT,
      userIds: seeded.userIds,
      capacities: seeded.tiers.map((tier) => CAPACITY[tier]),
      watches: seeded.watches,
      tokens: seeded.tokens,
      doomed,
      listed: seeded.listed,
      readsPerSecond: settings.readsPerSecond,
      writesPerSecond: settings.writesPerSecond,
      seed: settings.seed + 4,
      quietEndLimit,
    },
  })) as EdgeResponses['start'];
  log(`proxy at ${proxyUrl}`);

  const pool = new Pool({ connectionString: pg.url, max: 2, statement_timeout: 10_000, connectionTimeoutMillis: 2_000 });
  pool.on('error', () => undefined);
  cleanups.push({ label: 'the soak’s pool', run: () => pool.end() });

  // Warm-up: today's filings from before the run stored, analysed and announced; every singleton job held.
  const preRun = sandbox.control
    .filings()
    .filter((each) => each.rcept_dt === sandbox.control.today())
    .map((each) => each.rcept_no);
  const warmedUp = await waitFor(async () => {
    const sample = await backlog(pool);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM disclosures WHERE rcept_no = ANY($1)', [preRun]);
    const held = new Set(fleet.lives.flatMap((life) => life.held.at(-1)?.jobs ?? []));
    return rows[0].n === preRun.length && sample.analyses === 0 && sample.fanouts === 0 && sample.pending === 0 && held.has(MONITOR_JOB);
  }, 240_000);
  if (!warmedUp) throw new Error('the fleet did not settle within 240 s of starting');
  const singletonJobs = [...new Set(fleet.lives.flatMap((life) => life.held.at(-1)?.jobs ?? []))].sort();
  log(`warmed up; singleton jobs: ${singletonJobs.join(', ')}`);

  // The run.
  const runStart = Date.now();
  const samples: BacklogSample[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const tick = Date.now();
      await backlog(pool).then(
        (sample) => samples.push(sample),
        () => undefined,
      );
      await sleep(tick + 1_000 - Date.now());
    }
  })();
  await edge.call({ kind: 'run' });
  const filings: PublishedFiling[] = [];
  const publisher = publish(settings, runStart, sandbox, seeded.listed, documents, (filing) => {
    filings.push(filing);
    published.set(filing.rceptNo, filing);
  });
  const faults: FaultWindow[] = [];
  const faulting = runFaults(settings, runStart, faults, { fleet, pg, sandbox, fronts, model, recorder });
  const progress = setInterval(() => {
    const last = samples.at(-1);
    log(
      `+${Math.round((Date.now() - runStart) / 1000)} s: ${filings.length}/${settings.filings} filings, ` +
        `${int(recorder.messages.length)} messages, ${int(model.calls.length)} model calls` +
        (last
          ? `; to do: ${last.analyses} analyses, ${last.fanouts} fan-outs, ${last.pending + last.sending} pushes, ${last.held} held`
          : ''),
    );
  }, 20_000);
  await sleep(runStart + settings.runMs - Date.now());
  await publisher;
  const edgeResults = (await edge.call({ kind: 'stop' })) as EdgeResponses['stop'];
  const runEnd = Date.now();
  await faulting;
  log(`load stopped: ${int(edgeResults.requests.length)} requests, ${int(edgeResults.journal.length)} writes journalled`);

  // Drain: every filing stored and settled, every fan-out expanded, nothing left to send or held.
  const rceptNos = filings.map((filing) => filing.rceptNo);
  const drained = await waitFor(async () => {
    const sample = await backlog(pool);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM disclosures WHERE rcept_no = ANY($1)', [rceptNos]);
    return rows[0].n === rceptNos.length && sample.analyses + sample.fanouts + sample.pending + sample.sending + sample.held === 0;
  }, settings.drainMs);
  const drainEnd = Date.now();
  clearInterval(progress);
  sampling = false;
  await sampler;
  log(drained ? `drained in ${Math.round((drainEnd - runEnd) / 1000)} s` : 'the queues did not drain in time');

  const db = await collect(pool, filings, edgeResults.journal);
  await fleet.stopAll();
  const data: RunData = {
    settings,
    setupMs: runStart - startedAtWall,
    runStart,
    runEnd,
    drainEnd,
    drained,
    filings,
    faults,
    lives: fleet.lives,
    edge: edgeResults,
    messages: recorder.messages,
    unregisteredAt: recorder.unregisteredAt,
    doomed: (token) => recorder.isDoomed(token),
    modelCalls: model.calls,
    upstream: fronts.calls,
    samples,
    db,
    seeded,
    postgres: { origin: pg.origin, outageMethod: pg.outageMethod },
    singletonJobs,
  };
  const evaluation = evaluate(data);
  const svgName = 'soak-timeline.svg';
  const page = soakPage(data, evaluation, { totalMs: performance.now() - startedAt, svgName });
  const svg = timelineSvg(data, evaluation.pushLatency);
  // The run's own folder keeps the page, the chart and the raw data whatever SOAK_WRITE_DOCS says.
  await fs.writeFile(path.join(logDir, 'soak.md'), page);
  await fs.writeFile(path.join(logDir, svgName), svg);
  await fs.writeFile(path.join(logDir, 'run.json'), serialiseRun(data));
  log(`the run's page, chart and data: ${logDir}`);
  if (settings.writeDocs) {
    await writeResultsPage(svgName, () => svg, log);
    await writeResultsPage('soak.md', () => page, log);
  }
  process.stdout.write(`\n${invariantTable(evaluation).join('\n')}\n\n`);
  for (const check of evaluation.checks.filter((each) => !each.pass)) {
    process.stdout.write(`FAILED: ${check.name}\n${(check.notes ?? []).map((note) => `  ${note}\n`).join('')}`);
  }
  if (evaluation.checks.some((check) => !check.pass)) process.exitCode = 1;
}

/** Publishes the day's filings at their moments: by listed companies (by popularity) and, about a quarter, by others. */
async function publish(
  settings: SoakSettings,
  runStart: number,
  sandbox: Awaited<ReturnType<typeof startDartSandbox>>,
  listed: { corpCode: string[]; weight: number[] },
  documents: Prng,
  onPublished: (filing: PublishedFiling) => void,
): Promise<void> {
  const prng = new Prng(settings.seed + 5);
  // Popular companies file more, though not in proportion to their watchers.
  const filers = new WeightedPicker(
    listed.corpCode,
    listed.corpCode.map((_, rank) => Math.sqrt(popularity(rank))),
  );
  const others = [...sandbox.control.companiesIn('unlisted').slice(0, 5_000), ...sandbox.control.companiesIn('N')];
  for (const offset of filingSchedule(settings.filings, settings.runMs, settings.seed + 6)) {
    await sleep(runStart + offset - Date.now());
    const isListed = prng.chance(0.72);
    const corpCode = isListed ? filers.pick(prng) : prng.pick(others).corpCode;
    const filing = sandbox.control.publishFiling({ corp_code: corpCode });
    sandbox.control.setDocument(filing.rcept_no, filingDocument(filing.rcept_no, filing.report_nm, documents));
    onPublished({ rceptNo: filing.rcept_no, corpCode, listed: isListed, publishedAt: Date.now() });
  }
}

interface FaultTargets {
  fleet: Fleet;
  pg: Awaited<ReturnType<typeof startSoakPostgres>>;
  sandbox: Awaited<ReturnType<typeof startDartSandbox>>;
  fronts: DartFronts;
  model: SoakModel;
  recorder: PushRecorder;
}

/**
 * The faults, one after another at their share of the run: kill -9 of the monitor's holder (early,
 * and again in the after-close peak), PostgreSQL away, the disclosure system in maintenance then
 * slow (half as long), a model storm, FCM failing. A minute each, or 10 % of a short run; spaced so that
 * each leaves at least half a minute to recover in before the next (in a run of the default length).
 */
async function runFaults(settings: SoakSettings, runStart: number, faults: FaultWindow[], targets: FaultTargets): Promise<void> {
  const lasting = Math.min(60_000, settings.runMs * 0.1);
  const window = (kind: FaultWindow['kind'], label: string, start: number, end = Date.now()) => {
    faults.push({ kind, label, start, end });
    log(`fault: ${label} from +${Math.round((start - runStart) / 1000)} s to +${Math.round((end - runStart) / 1000)} s`);
  };
  const killHolder = async () => {
    const index = targets.fleet.holderOf(MONITOR_JOB) ?? 0;
    const jobs = targets.fleet.current(index)?.held.at(-1)?.jobs ?? [];
    const start = Date.now();
    targets.fleet.kill(index);
    log(`kill -9 of instance ${index}, holding ${jobs.join(', ') || 'nothing'}`);
    await sleep(Math.max(10_000, Math.min(30_000, settings.runMs * 0.05)));
    // As a supervisor would: again until it serves (its start may meet another fault).
    for (let attempt = 1; ; attempt++) {
      try {
        await targets.fleet.start(index);
        break;
      } catch (error) {
        if (attempt === 5) throw error;
        log(`restarting instance ${index} failed (${String(error)}); again in 5 s`);
        await sleep(5_000);
      }
    }
    window('kill', `kill -9 of instance ${index}`, start);
  };
  const plan: Array<{ share: number; run: () => Promise<void> }> = [
    { share: 0.12, run: killHolder },
    {
      share: 0.25,
      run: async () => {
        const { start, end } = await targets.pg.outage(Math.min(15_000, settings.runMs * 0.1));
        window('postgres', 'PostgreSQL away', start, end);
      },
    },
    {
      share: 0.33,
      run: async () => {
        let start = Date.now();
        targets.sandbox.control.setKeyStatus('800');
        await sleep(lasting);
        targets.sandbox.control.setKeyStatus(null);
        window('dart-maintenance', 'DART maintenance (800)', start);
        start = Date.now();
        targets.fronts.slowMs = settings.dartSlowMs;
        await sleep(lasting / 2);
        targets.fronts.slowMs = 0;
        window('dart-slow', `DART slow (${settings.dartSlowMs / 1000} s a call)`, start);
      },
    },
    {
      share: 0.55,
      run: async () => {
        const start = Date.now();
        targets.model.storming = true;
        await sleep(lasting);
        targets.model.storming = false;
        window('model', 'model timing out / invalid JSON', start);
      },
    },
    { share: 0.7, run: killHolder },
    {
      share: 0.82,
      run: async () => {
        const start = Date.now();
        targets.recorder.failing = true;
        await sleep(lasting);
        targets.recorder.failing = false;
        window('fcm', 'FCM failing', start);
      },
    },
  ];
  for (const fault of plan) {
    await sleep(runStart + fault.share * settings.runMs - Date.now());
    await fault.run();
  }
}

/**
 * `--evaluate <run.json> [--write-docs]`: the checks of a recorded run again (after a change to them),
 * its page and chart beside the file, and in docs/ too when asked.
 */
async function evaluateAgain(file: string, writeDocs: boolean): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  const share = (JSON.parse(text) as { settings: SoakSettings }).settings.unregisteredShare;
  const data = parseRun(text, (token) => token.startsWith(SEEDED_TOKEN_PREFIX) && isDoomedToken(token, share));
  const evaluation = evaluate(data);
  const dir = path.dirname(file);
  const svgName = 'soak-timeline.svg';
  const page = soakPage(data, evaluation, { totalMs: (data.setupMs ?? 0) + data.drainEnd - data.runStart, svgName });
  const svg = timelineSvg(data, evaluation.pushLatency);
  await fs.writeFile(path.join(dir, 'soak.md'), page);
  await fs.writeFile(path.join(dir, svgName), svg);
  if (writeDocs) {
    await writeResultsPage(svgName, () => svg, log);
    await writeResultsPage('soak.md', () => page, log);
  }
  process.stdout.write(`\n${invariantTable(evaluation).join('\n')}\n\n`);
  for (const check of evaluation.checks.filter((each) => !each.pass)) {
    process.stdout.write(`FAILED: ${check.name}\n${(check.notes ?? []).map((note) => `  ${note}\n`).join('')}`);
  }
  if (evaluation.checks.some((check) => !check.pass)) process.exitCode = 1;
}

if (process.argv[2] === '--evaluate' && process.argv[3]) {
  runBenchmark(() => evaluateAgain(process.argv[3], process.argv.includes('--write-docs')), log, cleanups);
} else {
  runBenchmark(main, log, cleanups);
}
