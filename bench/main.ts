import 'reflect-metadata';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { startDartSandbox } from '../local/dart-sandbox/dart-sandbox';
import { CpuMonitor } from './cpu-monitor';
import { startLoadClient } from './load-client';
import type { LoadJob, LoadResult, UrlSource } from './load-protocol';
import { startAnchors } from './anchors/anchors';
import { startOtlpReceiver } from '../local/doubles/otlp-receiver';
import { explainReads, type QueryPlan } from './plans';
import { startPostgresServer } from '../test/support/postgres-server';
import { createDatabase } from '../test/support/test-database';
import { BenchServer } from './server-client';
import type { MemorySample } from './server-protocol';
import {
  type AnchoredHit,
  type BenchReport,
  BENCHMARKS_PAGE_HEADER,
  GENERATED_BEGIN,
  GENERATED_END,
  type MachineInfo,
  type Measured,
  markdownReport,
  type RouteMeasurement,
  type ScaleStep,
  type Settings,
  type TimeSplit,
  FOREIGN_LOAD_THRESHOLD,
  textReport,
} from './report';
import { buildScenarios, type Scenario } from './scenarios';
import { DEFAULT_SEED, prewarmDatabase, type SeedReport, seedDatabase, settleDatabase } from './seed';
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

/**
 * The page with its generated part replaced; the text around the markers is kept. A page
 * without that part yet (new, or holding only `npm run bench:buckets`' section) gets it
 * right below the fixed header, above any other section.
 */
function withGenerated(existing: string | null, generated: string): string {
  const begin = existing?.indexOf(GENERATED_BEGIN) ?? -1;
  const end = existing?.indexOf(GENERATED_END) ?? -1;
  if (existing !== null && begin !== -1 && end > begin) {
    return existing.slice(0, begin) + generated + existing.slice(end + GENERATED_END.length);
  }
  const rest = existing?.startsWith(BENCHMARKS_PAGE_HEADER) ? existing.slice(BENCHMARKS_PAGE_HEADER.length).trim() : '';
  return `${BENCHMARKS_PAGE_HEADER}\n${generated}\n${rest === '' ? '' : `\n${rest}\n`}`;
}

/** The data set sizes of the scaling table: 100,000 and 1,000,000 filings where they are below BENCH_FILINGS, then BENCH_FILINGS itself. */
function scaleSizes(filings: number): number[] {
  return [...new Set([100_000, 1_000_000].filter((size) => size < filings).concat(filings))];
}

/** The body of a GET that must answer 200 (a route's sample answer); anything else stops the run. */
async function fetchOk(url: string): Promise<string> {
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 300)}`);
  return body;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
};

/** A seeded database with the server under test running on it, the routes' URL pools and their query plans. */
interface Dataset {
  filings: number;
  databaseUrl: string;
  server: BenchServer;
  client: Client;
  seed: SeedReport;
  seedMs: number;
  prewarm: string;
  scenarios: Scenario[];
  plans: QueryPlan[];
  companiesPreRead: LoadResult;
  /** One position in each route's URL pool for all its misses (warm-up included), so no miss URL is asked twice. */
  cursors: { offset: number }[];
  /** The server's memory once booted (migrations run, nothing seeded yet) and at idle once seeded and warmed up. */
  memoryBooted: MemorySample;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const settings: Settings = {
    connections: envNumber('BENCH_CONNECTIONS', 20, 1, 1000),
    durationSec: envNumber('BENCH_DURATION_S', 5, 1, 600),
    warmupSec: envNumber('BENCH_WARMUP_S', 1, 0, 60),
    sequentialSec: envNumber('BENCH_SEQUENTIAL_S', 3, 0.5, 60),
    sequentialMax: 3_000,
    rate: envNumber('BENCH_RATE', 100, 1, 100_000),
    rateSec: envNumber('BENCH_RATE_S', 10, 1, 600),
    rateConnections: 10,
  };
  const filings = envNumber('BENCH_FILINGS', DEFAULT_SEED.filings, 10_000, 10_000_000);
  const syncCompanyCount = envNumber('BENCH_SYNC_COMPANIES', 115_000, 1_000, 500_000);
  const warnings: string[] = [];
  const boot: Record<string, number> = {};

  // An embedded server gets room for the 1,000,000-filing data set with its indexes (their sizes: docs/benchmarks.md,
  // "Data set") in its own buffers, as a production server is sized to its working set: a company's page touches pages
  // spread over the table, which with the default 128 MB came from the kernel's cache on every read
  // (docs/benchmarks-history.md, "How the measurements changed").
  const postgres = await timedStep(boot, 'PostgreSQL', () => startPostgresServer('bench', log, { shared_buffers: '1GB' }));
  cleanups.push({ label: `PostgreSQL (${postgres.origin})`, run: () => postgres.stop() });

  const sandbox = await timedStep(boot, `sandbox (${syncCompanyCount.toLocaleString('en-US')} companies)`, () =>
    startDartSandbox({ companyCount: syncCompanyCount }),
  );
  cleanups.push({ label: 'disclosure-system sandbox', run: () => sandbox.close() });
  log(`sandbox at ${sandbox.baseUrl}`);

  const load = startLoadClient();
  cleanups.push({ label: `load generator (pid ${load.pid})`, run: () => load.close() });
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

  // Companies the sandbox lists are read once through the API on each data set (fetched and stored), so misses measure the stored-company path.
  const companies = [...sandbox.control.companiesIn('Y'), ...sandbox.control.companiesIn('K')];
  const companyCodes = companies.map((company) => company.corpCode);

  const openDataset = async (size: number): Promise<Dataset> => {
    const database = await createDatabase(postgres.adminUrl, 'briefing_bench');
    const dropDatabase = { label: `database ${database.name}`, run: () => database.drop() };
    cleanups.push(dropDatabase);
    log(`created database ${database.name} for ${size.toLocaleString('en-US')} filings`);
    const server = await timedStep(boot, `application (with migrations, ${size.toLocaleString('en-US')} filings)`, () =>
      BenchServer.start({ databaseUrl: database.url, dartBaseUrl: sandbox.baseUrl, dartApiKey: sandbox.apiKey }),
    );
    const stopServer = { label: `application (pid ${server.pid})`, run: () => server.close() };
    cleanups.push(stopServer);
    log(`application listening on ${server.origin} (pid ${server.pid})`);
    const memoryBooted = await server.memory(true);

    const client = new Client({ connectionString: database.url, application_name: 'bench' });
    await client.connect();
    const endClient = { label: 'bench database connection', run: () => client.end() };
    cleanups.push(endClient);

    log(`seeding ${size.toLocaleString('en-US')} filings`);
    const seedStarted = performance.now();
    const seed = await seedDatabase(client, { ...DEFAULT_SEED, filings: size }, log);
    const seedMs = performance.now() - seedStarted;
    log(`seeded in ${(seedMs / 1000).toFixed(1)} s: ${JSON.stringify(seed.counts)} ${JSON.stringify(seed.analyses)}`);

    // Only codes in the corp-code list are read; the stock sync (measured last, from an empty list) fills it in production.
    await client.query('INSERT INTO corp_codes (corp_code, corp_name) SELECT * FROM unnest($1::text[], $2::text[])', [
      companyCodes,
      companies.map((company) => company.corpName),
    ]);
    log(`reading ${companyCodes.length} companies once through the API`);
    const companiesPreRead = await load.call({
      origin: server.origin,
      kind: 'each',
      connections: 8,
      durationSec: 0,
      warmupSec: 0,
      source: { urls: companyCodes.map((code) => `/api/v1/companies/${code}`), offset: 0, bust: null },
    });
    if ((companiesPreRead.statuses['200'] ?? 0) !== companyCodes.length) {
      throw new Error(`reading the companies once: ${JSON.stringify(companiesPreRead.statuses)}`);
    }
    await server.clearHttpCache();
    await settleDatabase(client);
    const prewarm = await prewarmDatabase(client);
    log(`  ${prewarm}`);

    const scenarios = await buildScenarios(client, { report: seed, companyCodes, searchTermCount: 60_000 });
    log('capturing and explaining the SQL of each uncached read');
    const plans = await explainReads(server, client, scenarios);
    for (const plan of plans) {
      const prepared = plan.cachedPlan === undefined ? 'unprepared' : `prepared, ${plan.cachedPlan} plan`;
      log(`  ${plan.scenario}: planning ${plan.planningMs.toFixed(3)} ms, execution ${plan.executionMs.toFixed(3)} ms (${prepared})`);
    }

    let closing: Promise<void> | undefined;
    const close = () => {
      // Each step once, whether the dataset is closed in turn or by the cleanups at the end.
      closing ??= (async () => {
        for (const step of [endClient, stopServer, dropDatabase]) {
          await cleanups.runEarly(step);
        }
      })();
      return closing;
    };
    return {
      filings: size,
      databaseUrl: database.url,
      server,
      client,
      seed,
      seedMs,
      prewarm,
      scenarios,
      plans,
      companiesPreRead,
      cursors: scenarios.map(() => ({ offset: 0 })),
      memoryBooted,
      close,
    };
  };

  const measureOnce = async (server: BenchServer, job: LoadJob): Promise<Measured> => {
    const before = await server.queries();
    cpu.mark();
    const result = await load.call(job);
    const foreignCores = cpu.mark();
    const queries = (await server.queries()) - before;
    return { result, queriesPerRequest: queries / Math.max(1, result.requests + result.warmupRequests), foreignCores };
  };
  /**
   * One measurement; when other processes used the CPU meanwhile it is taken again (up to BENCH_RETRIES
   * times) and the least disturbed attempt kept. A cursor carries a URL pool's position across attempts.
   */
  const measure = async (
    server: BenchServer,
    label: string,
    job: (offset: number) => LoadJob,
    cursor?: { offset: number },
  ): Promise<Measured> => {
    let best: Measured | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      const measured = await measureOnce(server, job(cursor?.offset ?? 0));
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
  const check = (label: string, measured: Measured) => {
    const result = measured.result;
    const bad = Object.entries(result.statuses).filter(([status]) => !status.startsWith('2'));
    if (bad.length > 0) warnings.push(`${label}: non-2xx answers ${JSON.stringify(Object.fromEntries(bad))}`);
    if (result.errors > 0 || result.timeouts > 0) warnings.push(`${label}: ${result.errors} errors, ${result.timeouts} timeouts`);
    if (result.repeated > 0) warnings.push(`${label}: ${result.repeated} requests reused a URL (the pool ran out)`);
    if (measured.foreignCores !== null && measured.foreignCores >= FOREIGN_LOAD_THRESHOLD) {
      warnings.push(`${label}: other processes used ${measured.foreignCores.toFixed(2)} cores meanwhile`);
    }
  };
  /** One request at a time on one connection for BENCH_SEQUENTIAL_S, at most `sequentialMax` requests. */
  const sequentialJob = (origin: string, source: UrlSource, warmupSec = 0.3): LoadJob => ({
    origin,
    kind: 'sequential',
    connections: 1,
    durationSec: settings.sequentialSec,
    warmupSec,
    maxRequests: settings.sequentialMax,
    source,
  });
  const bustOf = (index: number, scenario: Scenario) => (scenario.bust ? `r${index}-` : null);

  /** A round over every route, hit and miss, so each code path is compiled and warm before anything is measured. */
  const warmUp = async (dataset: Dataset) => {
    log('warming up: every route, hit and miss');
    const base = { origin: dataset.server.origin, connections: settings.connections, warmupSec: 0, durationSec: 1, kind: 'load' as const };
    await measureOnce(dataset.server, { ...base, durationSec: 3, source: { urls: ['/bench/bare'], offset: 0, bust: null, repeats: true } });
    for (const [index, scenario] of dataset.scenarios.entries()) {
      await measureOnce(dataset.server, { ...base, source: { urls: [scenario.hitUrl], offset: 0, bust: null, repeats: true } });
      const warm = await measureOnce(dataset.server, {
        ...base,
        source: { urls: scenario.missUrls, offset: dataset.cursors[index].offset, bust: bustOf(index, scenario) },
      });
      dataset.cursors[index].offset += warm.result.used;
    }
  };

  /** Each route's misses one request at a time, then at the fixed offered load: the uncached latency on a server that is not saturated. */
  const measureUncached = async (dataset: Dataset): Promise<ScaleStep> => {
    const foreignAtStart = await waitQuiet(quietWaitSec * 1000);
    if (foreignAtStart !== null && foreignAtStart >= FOREIGN_LOAD_THRESHOLD) {
      warnings.push(
        `other processes kept using ${foreignAtStart.toFixed(2)} cores when the uncached measurements started (${dataset.filings} filings)`,
      );
    }
    const { server } = dataset;
    const size = `${dataset.filings.toLocaleString('en-US')} filings`;
    const bareSequential = await measure(server, 'bare (1 connection)', () =>
      sequentialJob(server.origin, { urls: ['/bench/bare'], offset: 0, bust: null, repeats: true }),
    );
    check(`bench/bare (1 connection, ${size})`, bareSequential);
    const routes: ScaleStep['routes'] = [];
    for (const [index, scenario] of dataset.scenarios.entries()) {
      const bust = bustOf(index, scenario);
      const cursor = dataset.cursors[index];
      const sequential = await measure(
        server,
        `${scenario.name} MISS (1 connection)`,
        (offset) => sequentialJob(server.origin, { urls: scenario.missUrls, offset, bust }),
        cursor,
      );
      const atRate = await measure(
        server,
        `${scenario.name} MISS (${settings.rate} req/s)`,
        (offset) => ({
          origin: server.origin,
          kind: 'rate',
          rate: settings.rate,
          connections: settings.rateConnections,
          durationSec: settings.rateSec,
          warmupSec: 0,
          source: { urls: scenario.missUrls, offset, bust },
        }),
        cursor,
      );
      check(`${scenario.name} MISS (1 connection, ${size})`, sequential);
      check(`${scenario.name} MISS (${settings.rate} req/s, ${size})`, atRate);
      const sqlMs = dataset.plans
        .filter((plan) => plan.scenario === scenario.name && !plan.variant)
        .reduce((sum, plan) => sum + plan.executionMs, 0);
      routes.push({ name: scenario.name, sqlMs, sequential, atRate });
      log(
        `  ${scenario.name} (${size}): 1 conn p50 ${sequential.result.p50.toFixed(2)} ms p99 ${sequential.result.p99.toFixed(2)} ms; ` +
          `${settings.rate} req/s p99 ${atRate.result.p99.toFixed(2)} ms; SQL ${sqlMs.toFixed(3)} ms`,
      );
    }
    return { filings: dataset.filings, seedMs: dataset.seedMs, bareSequential, routes };
  };

  const sizes = scaleSizes(filings);
  const scale: ScaleStep[] = [];
  for (const size of sizes.slice(0, -1)) {
    const dataset = await openDataset(size);
    await warmUp(dataset);
    scale.push(await measureUncached(dataset));
    await dataset.close();
  }

  // The largest data set: the same uncached measurements, then everything else.
  const dataset = await openDataset(filings);
  const { server, client, seed, scenarios } = dataset;
  const machine = await machineInfo(client, postgres.origin);
  await warmUp(dataset);
  const memoryIdle = await server.memory(true);
  const uncached = await measureUncached(dataset);
  scale.push(uncached);

  // The time split of the slowest uncached read, one request at a time.
  const slowest = uncached.routes.reduce((worst, route) => (route.sequential.result.p99 > worst.sequential.result.p99 ? route : worst));
  const slowestIndex = scenarios.findIndex((scenario) => scenario.name === slowest.name);
  const slowestScenario = scenarios[slowestIndex];
  let splitClient: LoadResult | undefined;
  const splits = await server.split(async () => {
    splitClient = await load.call(
      sequentialJob(
        server.origin,
        { urls: slowestScenario.missUrls, offset: dataset.cursors[slowestIndex].offset, bust: bustOf(slowestIndex, slowestScenario) },
        0,
      ),
    );
    dataset.cursors[slowestIndex].offset += splitClient.used;
  });
  const sampleBody = await fetchOk(`${server.origin}${slowestScenario.planUrl}`);
  const split: TimeSplit = {
    route: slowest.name,
    requests: splits.length,
    clientP50: splitClient!.p50,
    clientP99: splitClient!.p99,
    serverP50: quantile(
      splits.map((s) => s.serverMs),
      0.5,
    ),
    serverP99: quantile(
      splits.map((s) => s.serverMs),
      0.99,
    ),
    sqlP50: quantile(
      splits.map((s) => s.sqlMs),
      0.5,
    ),
    sqlP99: quantile(
      splits.map((s) => s.sqlMs),
      0.99,
    ),
    executionMs: slowest.sqlMs,
    serialiseMs: await server.serialiseMs(sampleBody),
  };
  log(`  time split of ${split.route}: ${JSON.stringify(split)}`);

  const base = {
    origin: server.origin,
    connections: settings.connections,
    durationSec: settings.durationSec,
    warmupSec: settings.warmupSec,
  };
  const bareUrl = { urls: ['/bench/bare'], offset: 0, bust: null, repeats: true };
  const bareLargeUrl = { urls: ['/bench/bare-large'], offset: 0, bust: null, repeats: true };

  log('bare routes');
  const bareStart = await measure(server, 'bare', () => ({ ...base, kind: 'load', source: bareUrl }));
  const bareLarge = await measure(server, 'bare-large', () => ({ ...base, kind: 'load', source: bareLargeUrl }));
  log(
    `  bare: ${Math.round(bareStart.result.rps)} req/s, p99 ${bareStart.result.p99.toFixed(2)} ms; ` +
      `bare-large: ${Math.round(bareLarge.result.rps)} req/s, p99 ${bareLarge.result.p99.toFixed(2)} ms`,
  );

  // The anchors answer each route's hit URL with the body the service gives it.
  const hitBodies: Record<string, string> = {};
  for (const scenario of scenarios) hitBodies[scenario.hitUrl] = await fetchOk(server.origin + scenario.hitUrl);
  const anchors = await startAnchors(hitBodies);
  cleanups.push({ label: 'anchor servers', run: () => anchors.close() });
  const anchorRounds = envNumber('BENCH_ANCHOR_ROUNDS', 3, 0, 20);
  // The same service with tracing on (OpenTelemetry, exporting to a loopback collector), on the same database.
  const collector = await startOtlpReceiver();
  cleanups.push({ label: 'OTLP collector', run: () => collector.close() });
  const traced = await BenchServer.start(
    { databaseUrl: dataset.databaseUrl, dartBaseUrl: sandbox.baseUrl, dartApiKey: sandbox.apiKey },
    ['-r', path.join(__dirname, 'tracing-preload.js')],
    { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'bench-traced' },
  );
  cleanups.push({ label: 'traced server under test', run: () => traced.close() });

  const routes: RouteMeasurement[] = [];
  const anchored: AnchoredHit[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    const body = hitBodies[scenario.hitUrl];
    const parsed = JSON.parse(body) as unknown;
    const items = Array.isArray(parsed) ? parsed.length : null;
    if (items === 0) warnings.push(`${scenario.name}: the HIT URL ${scenario.hitUrl} answers an empty list`);

    const bare = await measure(server, `${scenario.name}: bare just before`, () => ({ ...base, kind: 'load', source: bareUrl }));
    const hitSource = { urls: [scenario.hitUrl], offset: 0, bust: null, repeats: true };
    const hit = await measure(server, `${scenario.name} HIT`, () => ({ ...base, kind: 'load', source: hitSource }));
    const rounds: AnchoredHit = { name: scenario.name, hit: [], traced: [], nest: [], node: [] };
    for (let round = 0; round < anchorRounds; round++) {
      for (const [side, origin] of [
        ['hit', server.origin],
        ['traced', traced.origin],
        ['nest', anchors.nestOrigin],
        ['node', anchors.nodeOrigin],
      ] as const) {
        const result = await load.call({ ...base, origin, kind: 'load', source: hitSource });
        const bad = Object.keys(result.statuses).filter((status) => !status.startsWith('2'));
        if (bad.length > 0)
          warnings.push(`${scenario.name} against the anchors (${side}): non-2xx answers ${JSON.stringify(result.statuses)}`);
        rounds[side].push(result);
      }
    }
    if (anchorRounds > 0) {
      anchored.push(rounds);
      const last = (side: 'hit' | 'traced' | 'nest' | 'node') => Math.round(rounds[side].at(-1)!.rps);
      log(
        `  ${scenario.name} against the anchors, last round: service ${last('hit')}, traced ${last('traced')}, bare NestJS ${last('nest')}, node:http ${last('node')} req/s`,
      );
    }
    const miss = await measure(
      server,
      `${scenario.name} MISS`,
      (offset) => ({ ...base, kind: 'load', source: { urls: scenario.missUrls, offset, bust: bustOf(index, scenario) } }),
      dataset.cursors[index],
    );
    for (const [mode, measured] of [
      ['bare just before', bare],
      ['HIT', hit],
      ['MISS', miss],
    ] as const) {
      check(`${scenario.name} ${mode}`, measured);
    }
    const uncachedRoute = uncached.routes[index];
    routes.push({
      scenario,
      bare,
      hit,
      miss,
      missSequential: uncachedRoute.sequential,
      missAtRate: uncachedRoute.atRate,
      bodyBytes: Buffer.byteLength(body),
      items,
    });
    log(
      `  ${scenario.name}: bare ${Math.round(bare.result.rps)} req/s; HIT ${Math.round(hit.result.rps)} req/s p99 ${hit.result.p99.toFixed(2)} ms (SQL/req ${hit.queriesPerRequest.toFixed(2)}); ` +
        `MISS ${Math.round(miss.result.rps)} req/s p99 ${miss.result.p99.toFixed(2)} ms (SQL/req ${miss.queriesPerRequest.toFixed(2)})`,
    );
  }

  await traced.close();
  if (anchorRounds > 0 && collector.exports === 0) warnings.push('the traced server exported no spans: tracing was not on');
  log(`  the traced server sent ${collector.exports} OTLP exports`);

  const bareEnd = await measure(server, 'bare (end)', () => ({ ...base, kind: 'load', source: bareUrl }));
  for (const [label, measured] of [
    ['bare (start)', bareStart],
    ['bare-large', bareLarge],
    ['bare (end)', bareEnd],
  ] as const) {
    check(label, measured);
  }
  log(`  bare again: ${Math.round(bareEnd.result.rps)} req/s`);
  const memoryAfterLoad = await server.memory(false);
  const memoryAfterLoadLive = await server.memory(true);
  log(
    `  memory: idle ${JSON.stringify(memoryIdle)}, after the throughput runs ${JSON.stringify(memoryAfterLoad)} (live ${JSON.stringify(memoryAfterLoadLive)})`,
  );
  await load.close();

  log('stock sync');
  await client.query('TRUNCATE corp_codes');
  const zipStarted = performance.now();
  await sandbox.control.corpCodeZip();
  boot['sandbox corpCode.xml archive'] = performance.now() - zipStarted;
  const syncs = [];
  for (const mode of ['bootstrap', 'incremental'] as const) {
    const run = await runStockSync(server.origin, server.adminKey, mode, sandbox);
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
    seedMs: dataset.seedMs,
    prewarm: dataset.prewarm,
    syncCompanyCount,
    companiesPreRead: dataset.companiesPreRead,
    bareStart,
    bareEnd,
    bareLarge,
    bareSequential: uncached.bareSequential,
    routes,
    anchored,
    plans: dataset.plans,
    scale,
    split,
    memory: { booted: dataset.memoryBooted, idle: memoryIdle, afterLoad: memoryAfterLoad, afterLoadLive: memoryAfterLoadLive },
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
