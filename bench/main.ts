import 'reflect-metadata';
import * as os from 'node:os';
import { Client } from 'pg';
import { startDartSandbox } from '../local/dart-sandbox/dart-sandbox';
import { startBenchApp, type BenchApp } from './app';
import { CpuMonitor } from './cpu-monitor';
import { LoadClient } from './load-client';
import type { LoadJob } from './load-protocol';
import { startAnchors } from './anchors/anchors';
import { explainReads } from './plans';
import { startPostgresServer } from '../test/support/postgres-server';
import { createDatabase } from '../test/support/test-database';
import {
  type AnchoredHit,
  type BenchReport,
  GENERATED_BEGIN,
  GENERATED_END,
  type MachineInfo,
  type Measured,
  markdownReport,
  type RouteMeasurement,
  type Settings,
  FOREIGN_LOAD_THRESHOLD,
  textReport,
} from './report';
import { buildScenarios } from './scenarios';
import { DEFAULT_SEED, seedDatabase } from './seed';
import { runStockSync } from './sync';
import { createCleanups, createLog, envNumber, writeResultsPage } from './harness';

const startedAt = performance.now();
const log = createLog('bench');
const cleanups = createCleanups(log);
const cleanUp = cleanups.cleanUp;

async function timedStep<T>(timings: Record<string, number>, label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  timings[label] = performance.now() - started;
  return result;
}

async function machineInfo(client: Client, origin: string): Promise<MachineInfo> {
  const version = (await client.query<{ version: string }>('SELECT version()')).rows[0].version;
  const settings: Record<string, string> = {};
  for (const name of ['shared_buffers', 'work_mem', 'effective_cache_size', 'random_page_cost', 'jit']) {
    settings[name] = (await client.query<{ value: string }>(`SELECT current_setting('${name}') AS value`)).rows[0].value;
  }
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    postgres: version.split(' on ')[0],
    postgresOrigin: origin,
    postgresSettings: settings,
  };
}

/** The page with its generated part replaced; the text around the markers is kept. */
function withGenerated(existing: string | null, generated: string): string {
  const begin = existing?.indexOf(GENERATED_BEGIN) ?? -1;
  const end = existing?.indexOf(GENERATED_END) ?? -1;
  return existing !== null && begin !== -1 && end > begin
    ? existing.slice(0, begin) + generated + existing.slice(end + GENERATED_END.length)
    : `# Benchmarks\n\nWhat \`npm run bench\` measures on this machine, and the numbers of its last run.\n\n${generated}\n`;
}

async function main(): Promise<void> {
  const settings: Settings = {
    connections: envNumber('BENCH_CONNECTIONS', 20, 1, 1000),
    durationSec: envNumber('BENCH_DURATION_S', 5, 1, 600),
    warmupSec: envNumber('BENCH_WARMUP_S', 1, 0, 60),
    sequentialSec: envNumber('BENCH_SEQUENTIAL_S', 2, 0.5, 60),
    sequentialMax: 3_000,
  };
  const seedOptions = { ...DEFAULT_SEED, filings: envNumber('BENCH_FILINGS', DEFAULT_SEED.filings, 10_000, 10_000_000) };
  const syncCompanyCount = envNumber('BENCH_SYNC_COMPANIES', 115_000, 1_000, 500_000);
  const warnings: string[] = [];
  const boot: Record<string, number> = {};

  const server = await timedStep(boot, 'PostgreSQL', () => startPostgresServer('bench', log));
  cleanups.push({ label: `PostgreSQL (${server.origin})`, run: () => server.stop() });
  const database = await createDatabase(server.adminUrl, 'briefing_bench');
  cleanups.push({ label: `database ${database.name}`, run: () => database.drop() });
  log(`created database ${database.name}`);

  const sandbox = await timedStep(boot, `sandbox (${syncCompanyCount.toLocaleString('en-US')} companies)`, () =>
    startDartSandbox({ companyCount: syncCompanyCount }),
  );
  cleanups.push({ label: 'disclosure-system sandbox', run: () => sandbox.close() });
  log(`sandbox at ${sandbox.baseUrl}`);

  const app: BenchApp = await timedStep(boot, 'application (with migrations)', () =>
    startBenchApp({ databaseUrl: database.url, dartBaseUrl: sandbox.baseUrl, dartApiKey: sandbox.apiKey }),
  );
  cleanups.push({ label: 'application', run: () => app.close() });
  log(`application listening on ${app.origin}`);

  const client = new Client({ connectionString: database.url, application_name: 'bench' });
  await client.connect();
  cleanups.push({ label: 'bench database connection', run: () => client.end() });
  const machine = await machineInfo(client, server.origin);

  log(`seeding ${seedOptions.filings.toLocaleString('en-US')} filings`);
  const seedStarted = performance.now();
  const seed = await seedDatabase(client, seedOptions, log);
  const seedMs = performance.now() - seedStarted;
  log(`seeded in ${(seedMs / 1000).toFixed(1)} s: ${JSON.stringify(seed.counts)} ${JSON.stringify(seed.analyses)}`);

  const load = LoadClient.start();
  cleanups.push({ label: `load generator (pid ${load.pid})`, run: () => load.close() });
  const base = { origin: app.origin, connections: settings.connections, durationSec: settings.durationSec, warmupSec: settings.warmupSec };
  const cpu = new CpuMonitor();
  const retries = envNumber('BENCH_RETRIES', 1, 0, 10);
  // A machine that stays busy would make every measurement a retry: the retries of a run are limited.
  let retryBudget = envNumber('BENCH_RETRY_BUDGET', 10, 0, 1000);
  const quietWaitSec = envNumber('BENCH_QUIET_WAIT_S', 60, 0, 3600);
  /** Other work on the machine distorts every number: waits (from a budget for the whole run) until it stops. */
  let quietBudgetMs = envNumber('BENCH_QUIET_BUDGET_S', 150, 0, 36_000) * 1000;
  const waitQuiet = async (maxMs: number): Promise<number | null> => {
    const until = performance.now() + Math.min(maxMs, quietBudgetMs);
    for (;;) {
      cpu.mark();
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const foreign = cpu.mark();
      quietBudgetMs = Math.max(0, quietBudgetMs - (performance.now() - started));
      if (foreign === null || foreign < FOREIGN_LOAD_THRESHOLD) return foreign;
      if (performance.now() > until) return foreign;
      log(`  other processes use ${foreign.toFixed(2)} cores; waiting for the machine to be quiet`);
    }
  };

  const measureOnce = async (job: Omit<LoadJob, 'id'>): Promise<Measured> => {
    const before = app.tap.count;
    cpu.mark();
    const result = await load.run(job);
    const foreignCores = cpu.mark();
    const queries = app.tap.count - before;
    return { result, queriesPerRequest: queries / Math.max(1, result.requests + result.warmupRequests), foreignCores };
  };
  /**
   * One measurement; when other processes used the CPU meanwhile it is taken again (up to BENCH_RETRIES
   * times) and the least disturbed attempt kept. A cursor carries a URL pool's position across attempts.
   */
  const measure = async (label: string, job: (offset: number) => Omit<LoadJob, 'id'>, cursor?: { offset: number }): Promise<Measured> => {
    let best: Measured | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      const measured = await measureOnce(job(cursor?.offset ?? 0));
      if (cursor) cursor.offset += measured.result.used;
      if (best === undefined || (measured.foreignCores ?? 0) < (best.foreignCores ?? 0)) best = measured;
      if (measured.foreignCores === null || measured.foreignCores < FOREIGN_LOAD_THRESHOLD) break;
      if (attempt === retries || retryBudget === 0) break;
      retryBudget -= 1;
      log(`  ${label}: other processes used ${measured.foreignCores.toFixed(2)} cores meanwhile; measuring again once they stop`);
      await waitQuiet(60_000);
    }
    return best!;
  };
  // Companies are read once (fetched from the sandbox and stored) so misses measure the stored-company path.
  const companies = [...sandbox.control.companiesIn('Y'), ...sandbox.control.companiesIn('K')];
  const companyCodes = companies.map((company) => company.corpCode);
  // Only codes in the corp-code list are read; the stock sync (measured last, from an empty list) fills it in production.
  await client.query('INSERT INTO corp_codes (corp_code, corp_name) SELECT * FROM unnest($1::text[], $2::text[])', [
    companyCodes,
    companies.map((company) => company.corpName),
  ]);
  log(`reading ${companyCodes.length} companies once through the API`);
  const companiesPreRead = await load.run({
    ...base,
    kind: 'each',
    connections: 8,
    source: { urls: companyCodes.map((code) => `/api/v1/companies/${code}`), offset: 0, bust: null },
  });
  if ((companiesPreRead.statuses['200'] ?? 0) !== companyCodes.length) {
    throw new Error(`reading the companies once: ${JSON.stringify(companiesPreRead.statuses)}`);
  }
  await app.clearHttpCache();

  const scenarios = await buildScenarios(client, { report: seed, companyCodes, searchTermCount: 60_000 });

  log('capturing and explaining the SQL of each uncached read');
  const plans = await explainReads(app, client, scenarios);
  for (const plan of plans) log(`  ${plan.scenario}: execution ${plan.executionMs.toFixed(3)} ms`);

  // Other work on the machine (a test run, a build) would distort every number: wait for it to end, for a while.
  const foreignAtStart = await waitQuiet(quietWaitSec * 1000);
  if (foreignAtStart !== null && foreignAtStart >= FOREIGN_LOAD_THRESHOLD) {
    warnings.push(`other processes kept using ${foreignAtStart.toFixed(2)} cores when the HTTP measurements started`);
  }

  const bareUrl = { urls: ['/bench/bare'], offset: 0, bust: null, repeats: true };
  const bareLargeUrl = { urls: ['/bench/bare-large'], offset: 0, bust: null, repeats: true };
  // One position in each route's URL pool for all its misses (warm-up included), so no miss URL is asked twice.
  const cursors = scenarios.map(() => ({ offset: 0 }));
  const bustOf = (index: number) => (scenarios[index].bust ? `r${index}-` : null);

  // A round over every route first, so each code path is compiled and warm before anything is measured.
  log('warming up: every route, hit and miss');
  await measureOnce({ ...base, kind: 'load', warmupSec: 0, durationSec: 3, source: bareUrl });
  await measureOnce({ ...base, kind: 'load', warmupSec: 0, durationSec: 1, source: bareLargeUrl });
  for (const [index, scenario] of scenarios.entries()) {
    await measureOnce({ ...base, kind: 'load', warmupSec: 0, durationSec: 1, source: { urls: [scenario.hitUrl], offset: 0, bust: null, repeats: true } });
    const warm = await measureOnce({
      ...base,
      kind: 'load',
      warmupSec: 0,
      durationSec: 1,
      source: { urls: scenario.missUrls, offset: cursors[index].offset, bust: bustOf(index) },
    });
    cursors[index].offset += warm.result.used;
  }

  log('bare routes');
  const bareStart = await measure('bare', () => ({ ...base, kind: 'load', source: bareUrl }));
  const bareSequential = await measure('bare (1 connection)', () => ({
    ...base,
    kind: 'sequential',
    connections: 1,
    durationSec: settings.sequentialSec,
    warmupSec: 0.3,
    maxRequests: settings.sequentialMax,
    source: bareUrl,
  }));
  const bareLarge = await measure('bare-large', () => ({ ...base, kind: 'load', source: bareLargeUrl }));
  log(
    `  bare: ${Math.round(bareStart.result.rps)} req/s, p99 ${bareStart.result.p99.toFixed(2)} ms; ` +
      `bare-large: ${Math.round(bareLarge.result.rps)} req/s, p99 ${bareLarge.result.p99.toFixed(2)} ms`,
  );

  // The anchors answer each route's hit URL with the body the service gives it.
  const hitBodies: Record<string, string> = {};
  for (const scenario of scenarios) hitBodies[scenario.hitUrl] = await (await fetch(app.origin + scenario.hitUrl)).text();
  const anchors = await startAnchors(hitBodies);
  cleanups.push({ label: 'anchor servers', run: () => anchors.close() });
  const anchorRounds = envNumber('BENCH_ANCHOR_ROUNDS', 3, 0, 20);

  const routes: RouteMeasurement[] = [];
  const anchored: AnchoredHit[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    const sample = await fetch(app.origin + scenario.hitUrl);
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`GET ${scenario.hitUrl} answered ${sample.status}: ${body.slice(0, 300)}`);
    const parsed = JSON.parse(body) as unknown;
    const items = Array.isArray(parsed) ? parsed.length : null;
    if (items === 0) warnings.push(`${scenario.name}: the HIT URL ${scenario.hitUrl} answers an empty list`);

    const bare = await measure(`${scenario.name}: bare just before`, () => ({ ...base, kind: 'load', source: bareUrl }));
    const hitSource = { urls: [scenario.hitUrl], offset: 0, bust: null, repeats: true };
    const hit = await measure(`${scenario.name} HIT`, () => ({ ...base, kind: 'load', source: hitSource }));
    const rounds: AnchoredHit = { name: scenario.name, hit: [], nest: [], node: [] };
    for (let round = 0; round < anchorRounds; round++) {
      for (const [side, origin] of [['hit', app.origin], ['nest', anchors.nestOrigin], ['node', anchors.nodeOrigin]] as const) {
        const { result } = await measureOnce({ ...base, origin, kind: 'load', source: hitSource });
        const bad = Object.keys(result.statuses).filter((status) => !status.startsWith('2'));
        if (bad.length > 0) warnings.push(`${scenario.name} against the anchors (${side}): non-2xx answers ${JSON.stringify(result.statuses)}`);
        rounds[side].push(result);
      }
    }
    if (anchorRounds > 0) {
      anchored.push(rounds);
      const last = (side: 'hit' | 'nest' | 'node') => Math.round(rounds[side].at(-1)!.rps);
      log(`  ${scenario.name} against the anchors, last round: service ${last('hit')}, bare NestJS ${last('nest')}, node:http ${last('node')} req/s`);
    }
    const cursor = cursors[index];
    const bust = bustOf(index);
    const miss = await measure(
      `${scenario.name} MISS`,
      (offset) => ({ ...base, kind: 'load', source: { urls: scenario.missUrls, offset, bust } }),
      cursor,
    );
    const missSequential = await measure(
      `${scenario.name} MISS (1 connection)`,
      (offset) => ({
        ...base,
        kind: 'sequential',
        connections: 1,
        durationSec: settings.sequentialSec,
        warmupSec: 0.3,
        maxRequests: settings.sequentialMax,
        source: { urls: scenario.missUrls, offset, bust },
      }),
      cursor,
    );
    for (const [mode, measured] of [
      ['bare just before', bare],
      ['HIT', hit],
      ['MISS', miss],
      ['MISS (1 connection)', missSequential],
    ] as const) {
      const result = measured.result;
      const bad = Object.entries(result.statuses).filter(([status]) => !status.startsWith('2'));
      if (bad.length > 0) warnings.push(`${scenario.name} ${mode}: non-2xx answers ${JSON.stringify(Object.fromEntries(bad))}`);
      if (result.errors > 0 || result.timeouts > 0) warnings.push(`${scenario.name} ${mode}: ${result.errors} errors, ${result.timeouts} timeouts`);
      if (result.repeated > 0) warnings.push(`${scenario.name} ${mode}: ${result.repeated} requests reused a URL (the pool ran out)`);
      if (measured.foreignCores !== null && measured.foreignCores >= FOREIGN_LOAD_THRESHOLD) {
        warnings.push(`${scenario.name} ${mode}: other processes used ${measured.foreignCores.toFixed(2)} cores meanwhile`);
      }
    }
    routes.push({ scenario, bare, hit, miss, missSequential, bodyBytes: Buffer.byteLength(body), items });
    log(
      `  ${scenario.name}: bare ${Math.round(bare.result.rps)} req/s; HIT ${Math.round(hit.result.rps)} req/s p99 ${hit.result.p99.toFixed(2)} ms (SQL/req ${hit.queriesPerRequest.toFixed(2)}); ` +
        `MISS ${Math.round(miss.result.rps)} req/s p99 ${miss.result.p99.toFixed(2)} ms (SQL/req ${miss.queriesPerRequest.toFixed(2)}); ` +
        `1 conn p99 ${missSequential.result.p99.toFixed(2)} ms`,
    );
  }

  const bareEnd = await measure('bare (end)', () => ({ ...base, kind: 'load', source: bareUrl }));
  for (const [label, measured] of [
    ['bare (start)', bareStart],
    ['bare (1 connection)', bareSequential],
    ['bare-large', bareLarge],
    ['bare (end)', bareEnd],
  ] as const) {
    if (measured.foreignCores !== null && measured.foreignCores >= FOREIGN_LOAD_THRESHOLD) {
      warnings.push(`${label}: other processes used ${measured.foreignCores.toFixed(2)} cores meanwhile`);
    }
  }
  log(`  bare again: ${Math.round(bareEnd.result.rps)} req/s`);
  await load.close();

  log('stock sync');
  await client.query('TRUNCATE corp_codes');
  const zipStarted = performance.now();
  await sandbox.control.corpCodeZip();
  boot['sandbox corpCode.xml archive'] = performance.now() - zipStarted;
  const syncs = [];
  for (const mode of ['bootstrap', 'incremental'] as const) {
    const run = await runStockSync(app.origin, app.adminKey, mode, sandbox);
    syncs.push(run);
    log(`  ${mode}: ${(run.wallMs / 1000).toFixed(1)} s, ${JSON.stringify(run.final)}`);
    if (run.final.status !== 'completed') warnings.push(`the ${mode} stock sync ended ${run.final.status}: ${run.final.last_error}`);
  }

  const report: BenchReport = {
    startedAt: new Date(Date.now() - (performance.now() - startedAt)),
    totalSec: 0,
    machine,
    settings,
    boot,
    seed,
    seedMs,
    syncCompanyCount,
    companiesPreRead,
    bareStart,
    bareEnd,
    bareLarge,
    bareSequential,
    routes,
    anchored,
    plans,
    syncs,
    warnings,
  };

  await cleanUp();
  report.totalSec = (performance.now() - startedAt) / 1000;
  process.stdout.write(textReport(report));
  await writeResultsPage('benchmarks.md', (existing) => withGenerated(existing, markdownReport(report)), log);
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanUp();
    process.exit(1);
  },
);
