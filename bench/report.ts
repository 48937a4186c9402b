import type { LoadResult } from './load-protocol';
import type { MemorySample } from './server-protocol';
import type { QueryPlan } from './plans';
import type { Scenario } from './scenarios';
import type { SeedReport } from './seed';
import type { SyncRun } from './sync';

export interface Measured {
  result: LoadResult;
  /** SQL statements the server sent per request (warm-up included): about 0 for hits, 1 or more for misses. */
  queriesPerRequest: number;
  /** Cores other processes on the machine used meanwhile (null: unknown). */
  foreignCores: number | null;
}

export interface RouteMeasurement {
  scenario: Scenario;
  /** The bare route measured right before this route's HIT: the reference of its "% of bare". */
  bare: Measured;
  hit: Measured;
  miss: Measured;
  /** One request at a time on an otherwise idle server. */
  missSequential: Measured;
  /** At the fixed offered load (`Settings.rate`), below saturation. */
  missAtRate: Measured;
  /** Body of the hit URL, in bytes, and its item count when it is an array. */
  bodyBytes: number;
  items: number | null;
}

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memory: string;
  node: string;
  os: string;
  postgres: string;
  postgresOrigin: string;
  postgresSettings: Record<string, string>;
}

export interface Settings {
  connections: number;
  durationSec: number;
  warmupSec: number;
  sequentialSec: number;
  sequentialMax: number;
  /** The fixed offered load of the uncached runs (autocannon -R), its seconds and its connections. */
  rate: number;
  rateSec: number;
  rateConnections: number;
}

/** The uncached reads on one data set size. */
export interface ScaleStep {
  filings: number;
  seedMs: number;
  bareSequential: Measured;
  routes: {
    name: string;
    /** EXPLAIN ANALYZE execution time of its statements (warm). */ sqlMs: number;
    sequential: Measured;
    atRate: Measured;
  }[];
}

/** Where the time of the slowest uncached read goes, one request at a time (medians unless named p99). */
export interface TimeSplit {
  route: string;
  requests: number;
  /** As the load generator saw it: connection, HTTP parsing on both sides, everything. */
  clientP50: number;
  clientP99: number;
  /** In the server process, from the request's arrival to the answer's last byte handed to the socket. */
  serverP50: number;
  serverP99: number;
  /** The statements' round trips through the driver (pg) within the server time. */
  sqlP50: number;
  sqlP99: number;
  /** PostgreSQL's own execution time of the statements (EXPLAIN ANALYZE, warm). */
  executionMs: number;
  /** JSON.stringify of the answer's value. */
  serialiseMs: number;
}

export interface MemoryReport {
  /** The server process once booted (migrations run), before seeding. */
  booted: MemorySample;
  /** Seeded and warmed up, before the measurements; heap after a full collection. */
  idle: MemorySample;
  /** At the end of the throughput runs, as it was, and after a full collection (what is live). */
  afterLoad: MemorySample;
  afterLoadLive: MemorySample;
}

export interface BenchReport {
  startedAt: Date;
  totalSec: number;
  machine: MachineInfo;
  settings: Settings;
  boot: Record<string, number>;
  seed: SeedReport;
  /** Wall time of the whole seeding. */
  seedMs: number;
  /** What `prewarmDatabase` did once the data set was seeded and its companies read. */
  prewarm: string;
  /** Corp codes in the sandbox the stock sync ran against. */
  syncCompanyCount: number;
  companiesPreRead: LoadResult;
  bareStart: Measured;
  bareEnd: Measured;
  /** The same pipeline answering a constant 16 kB list (50 filings): the payload's own cost. */
  bareLarge: Measured;
  bareSequential: Measured;
  routes: RouteMeasurement[];
  /** Each route's cache hit against the two anchor processes, in alternating rounds. */
  anchored: AnchoredHit[];
  plans: QueryPlan[];
  /** The uncached reads at each data set size, the largest (the one of everything else) last. */
  scale: ScaleStep[];
  split: TimeSplit;
  memory: MemoryReport;
  syncs: SyncRun[];
  warnings: string[];
}

/**
 * A cache hit measured against the anchors (separate processes answering the same body):
 * one run of each per round, the three in turn, so the machine's drift touches all alike.
 */
export interface AnchoredHit {
  name: string;
  hit: LoadResult[];
  /** The same service in a process of its own with tracing on (OpenTelemetry, exporting to a loopback collector). */
  traced: LoadResult[];
  /** A bare NestJS app on Express: one `@Get`, no middleware. */
  nest: LoadResult[];
  /** `node:http` writing the prepared body. */
  node: LoadResult[];
}

/** Issue 15: a cache hit at 90% of the bare NestJS route's throughput at least, and its p99 within 1.5× of that route's. */
export const HIT_OF_NEST_TARGET = 0.9;
export const HIT_P99_OF_NEST_TARGET = 1.5;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

interface AnchorVerdict {
  hit: number;
  traced: number;
  tracedP99: number;
  nest: number;
  node: number;
  hitP99: number;
  nestP99: number;
  throughputMet: boolean;
  p99Met: boolean;
}

/** A route's hit against the anchors: medians of the rounds and the verdicts on the two targets. */
function anchorVerdict(route: AnchoredHit): AnchorVerdict {
  const hit = median(route.hit.map((r) => r.rps));
  const nest = median(route.nest.map((r) => r.rps));
  const hitP99 = median(route.hit.map((r) => r.p99));
  const nestP99 = median(route.nest.map((r) => r.p99));
  return {
    hit,
    traced: median(route.traced.map((r) => r.rps)),
    tracedP99: median(route.traced.map((r) => r.p99)),
    nest,
    node: median(route.node.map((r) => r.rps)),
    hitP99,
    nestP99,
    throughputMet: hit >= HIT_OF_NEST_TARGET * nest,
    p99Met: hitP99 <= HIT_P99_OF_NEST_TARGET * nestP99,
  };
}

/** The anchor table: medians of the rounds, the ratios to the bare NestJS app, and the targets. */
function anchoredTable(report: BenchReport): { table: string; met: number; total: number } {
  let met = 0;
  const rows = report.anchored.map((route) => {
    const v = anchorVerdict(route);
    if (v.throughputMet && v.p99Met) met += 1;
    return [
      route.name,
      int(v.hit),
      int(v.nest),
      int(v.node),
      `${pct(v.hit / v.nest)} ${v.throughputMet ? 'yes' : 'NO'}`,
      `${ms(v.hitP99)} / ${ms(v.nestP99)} ms ${v.p99Met ? 'yes' : 'NO'}`,
      int(v.traced),
      `${pct(v.traced / v.hit)}, p99 ${ms(v.tracedP99)} ms`,
    ];
  });
  const table = markdownTable(
    [
      'route (cache hit)',
      'service req/s',
      'bare NestJS req/s',
      'node:http req/s',
      `service / bare NestJS (≥ ${pct(HIT_OF_NEST_TARGET)})`,
      `p99 service / bare (≤ ${HIT_P99_OF_NEST_TARGET}×)`,
      'traced req/s',
      'traced / service',
    ],
    rows,
    [false, true, true, true, true, true, true, true],
  );
  return { table, met, total: rows.length };
}

/** Issue 15: every uncached public read under 5 ms at p99 one request at a time, and under 25 ms at p99 at the fixed offered load. */
export const MISS_P99_TARGET_MS = 5;
export const AT_RATE_P99_TARGET_MS = 25;
export const BOOTSTRAP_SYNC_TARGET_MS = 30_000;

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const pct = (value: number) => `${Math.round(value * 100)}%`;
const seconds = (valueMs: number) => `${(valueMs / 1000).toFixed(1)} s`;

const quietRun = (run: Measured) => run.foreignCores === null || run.foreignCores < FOREIGN_LOAD_THRESHOLD;

/**
 * The bare route's overall req/s (for the reference rows): the mean of all its runs that other
 * processes did not disturb (if all were disturbed, the fastest).
 */
export function bareReference(report: Pick<BenchReport, 'bareStart' | 'bareEnd' | 'routes'>): number {
  const runs = [report.bareStart, report.bareEnd, ...report.routes.map((route) => route.bare)];
  const quiet = runs.filter(quietRun);
  if (quiet.length === 0) return Math.max(...runs.map((run) => run.result.rps));
  return quiet.reduce((sum, run) => sum + run.result.rps, 0) / quiet.length;
}

function bareSpread(report: Pick<BenchReport, 'bareStart' | 'bareEnd' | 'routes'>): string {
  const rates = [report.bareStart, report.bareEnd, ...report.routes.map((route) => route.bare)].map((run) => run.result.rps);
  return `${int(Math.min(...rates))} to ${int(Math.max(...rates))}`;
}

function problems(result: LoadResult): string {
  const non2xx = Object.entries(result.statuses)
    .filter(([status]) => !status.startsWith('2'))
    .reduce((sum, [, count]) => sum + count, 0);
  const parts: string[] = [];
  if (non2xx > 0) parts.push(`${non2xx} non-2xx`);
  if (result.errors > 0) parts.push(`${result.errors} errors`);
  if (result.timeouts > 0) parts.push(`${result.timeouts} timeouts`);
  if (result.repeated > 0) parts.push(`${result.repeated} repeated URLs`);
  return parts.join(', ');
}

/** Other processes' CPU use during a measurement, when it was noticeable. */
export const FOREIGN_LOAD_THRESHOLD = 0.15;
function foreign(measured: Measured): string {
  return measured.foreignCores === null ? '?' : measured.foreignCores.toFixed(2);
}

interface Row {
  route: string;
  mode: string;
  rps: string;
  p50: string;
  p99: string;
  share: string;
  queries: string;
  bytes: string;
  other: string;
  notes: string;
}

function throughputRows(report: BenchReport): Row[] {
  const reference = bareReference(report);
  const row = (route: string, mode: string, measured: Measured, bytes: string, base = reference): Row => ({
    route,
    mode,
    rps: int(measured.result.rps),
    p50: ms(measured.result.p50),
    p99: ms(measured.result.p99),
    share: pct(measured.result.rps / base),
    queries: measured.queriesPerRequest.toFixed(2),
    bytes,
    other: foreign(measured),
    notes: problems(measured.result),
  });
  const rows: Row[] = [
    row('bench/bare (start)', 'no cache', report.bareStart, '~250'),
    row('bench/bare-large', 'no cache', report.bareLarge, '~16,000 (50 items)'),
  ];
  for (const route of report.routes) {
    const size = `${int(route.bodyBytes)}${route.items === null ? '' : ` (${route.items} items)`}`;
    rows.push(row('bench/bare (just before)', 'no cache', route.bare, '~250'));
    rows.push(row(route.scenario.name, 'HIT', route.hit, size, route.bare.result.rps));
    rows.push(row(route.scenario.name, 'MISS', route.miss, '', route.bare.result.rps));
  }
  rows.push(row('bench/bare (end)', 'no cache', report.bareEnd, '~250'));
  return rows;
}

const HEADERS: Row = {
  route: 'route',
  mode: 'cache',
  rps: 'req/s',
  p50: 'p50 ms',
  p99: 'p99 ms',
  share: '% of bare',
  queries: 'SQL/req',
  bytes: 'body bytes',
  other: 'other CPU',
  notes: 'problems',
};
const COLUMNS: (keyof Row)[] = ['route', 'mode', 'rps', 'p50', 'p99', 'share', 'queries', 'bytes', 'other', 'notes'];
const RIGHT: (keyof Row)[] = ['rps', 'p50', 'p99', 'share', 'queries', 'other'];

function textTable(headers: string[], rows: string[][], right: boolean[]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (right[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

function markdownTable(headers: string[], rows: string[][], right: boolean[]): string {
  const escape = (cell: string) => cell.replace(/\|/g, '\\|');
  return [
    `| ${headers.map(escape).join(' | ')} |`,
    `| ${right.map((isRight) => (isRight ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
  ].join('\n');
}

function throughputTable(report: BenchReport, format: 'text' | 'markdown'): string {
  const rows = throughputRows(report).map((row) => COLUMNS.map((column) => row[column]));
  const headers = COLUMNS.map((column) => HEADERS[column]);
  const right = COLUMNS.map((column) => RIGHT.includes(column));
  return format === 'text' ? textTable(headers, rows, right) : markdownTable(headers, rows, right);
}

interface TargetRow {
  route: string;
  /** Against the bare NestJS anchor (null when no anchor rounds ran). */
  anchor: AnchorVerdict | null;
  /** EXPLAIN ANALYZE execution time of the route's SQL (warm), summed over its statements. */
  sqlMs: number;
  missP99Sequential: number;
  missP99AtRate: number;
  missP99Load: number;
  sequentialMet: boolean;
  atRateMet: boolean;
}

function targetRows(report: BenchReport): TargetRow[] {
  return report.routes.map((route) => {
    const anchored = report.anchored.find((entry) => entry.name === route.scenario.name);
    return {
      route: route.scenario.name,
      anchor: anchored ? anchorVerdict(anchored) : null,
      sqlMs: report.plans
        .filter((plan) => plan.scenario === route.scenario.name && !plan.variant)
        .reduce((sum, plan) => sum + plan.executionMs, 0),
      missP99Sequential: route.missSequential.result.p99,
      missP99AtRate: route.missAtRate.result.p99,
      missP99Load: route.miss.result.p99,
      sequentialMet: route.missSequential.result.p99 < MISS_P99_TARGET_MS,
      atRateMet: route.missAtRate.result.p99 < AT_RATE_P99_TARGET_MS,
    };
  });
}

const verdict = (met: boolean) => (met ? 'yes' : 'NO');

function latencyTable(report: BenchReport, format: 'text' | 'markdown'): string {
  const headers = ['route', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'SQL/req', 'other CPU', `p99 < ${MISS_P99_TARGET_MS} ms`];
  const rows = [
    ['bench/bare', report.bareSequential, null] as const,
    ...report.routes.map((route) => [route.scenario.name, route.missSequential, true] as const),
  ].map(([name, measured, judged]) => [
    name,
    int(measured.result.rps),
    ms(measured.result.p50),
    ms(measured.result.p90),
    ms(measured.result.p99),
    ms(measured.result.max),
    measured.queriesPerRequest.toFixed(2),
    foreign(measured),
    judged === null ? '' : verdict(measured.result.p99 < MISS_P99_TARGET_MS),
  ]);
  const right = [false, true, true, true, true, true, true, true, false];
  return format === 'text' ? textTable(headers, rows, right) : markdownTable(headers, rows, right);
}

function targetsTable(report: BenchReport, format: 'text' | 'markdown'): string {
  const s = report.settings;
  const headers = [
    'route',
    `HIT / bare NestJS (≥ ${pct(HIT_OF_NEST_TARGET)})`,
    `HIT p99 / bare NestJS p99 (≤ ${HIT_P99_OF_NEST_TARGET}×)`,
    'SQL execution',
    `MISS p99, 1 conn (< ${MISS_P99_TARGET_MS} ms)`,
    `MISS p99, ${s.rate} req/s (< ${AT_RATE_P99_TARGET_MS} ms)`,
    `MISS p99, ${s.connections} conns saturating`,
  ];
  const rows = targetRows(report).map((row) => [
    row.route,
    row.anchor ? `${pct(row.anchor.hit / row.anchor.nest)} ${verdict(row.anchor.throughputMet)}` : 'not measured',
    row.anchor ? `${(row.anchor.hitP99 / row.anchor.nestP99).toFixed(2)}× ${verdict(row.anchor.p99Met)}` : 'not measured',
    `${ms(row.sqlMs)} ms`,
    `${ms(row.missP99Sequential)} ms ${verdict(row.sequentialMet)}`,
    `${ms(row.missP99AtRate)} ms ${verdict(row.atRateMet)}`,
    `${ms(row.missP99Load)} ms`,
  ]);
  const right = [false, true, true, true, true, true, true];
  return format === 'text' ? textTable(headers, rows, right) : markdownTable(headers, rows, right);
}

/** The uncached reads at each data set size: how the cost grows with the data. */
function scaleTable(report: BenchReport, format: 'text' | 'markdown'): string {
  const s = report.settings;
  const headers = [
    'route',
    'filings',
    'SQL execution ms',
    '1 conn p50 ms',
    '1 conn p99 ms',
    `${s.rate} req/s p50 ms`,
    `${s.rate} req/s p99 ms`,
  ];
  const rows: string[][] = [];
  for (const [index, route] of report.scale[0].routes.entries()) {
    for (const step of report.scale) {
      const at = step.routes[index];
      rows.push([
        route.name,
        int(step.filings),
        ms(at.sqlMs),
        ms(at.sequential.result.p50),
        ms(at.sequential.result.p99),
        ms(at.atRate.result.p50),
        ms(at.atRate.result.p99),
      ]);
    }
  }
  const right = [false, true, true, true, true, true, true];
  return format === 'text' ? textTable(headers, rows, right) : markdownTable(headers, rows, right);
}

/** Where the slowest uncached read's time goes. */
function splitTable(split: TimeSplit, format: 'text' | 'markdown'): string {
  const driverMs = Math.max(0, split.sqlP50 - split.executionMs);
  const pipelineMs = Math.max(0, split.serverP50 - split.sqlP50 - split.serialiseMs);
  const outsideMs = Math.max(0, split.clientP50 - split.serverP50);
  const part = (value: number) => `${ms(value)} ms (${pct(value / split.clientP50)})`;
  const rows = [
    ['SQL: PostgreSQL executing the statements (EXPLAIN ANALYZE)', part(split.executionMs)],
    ["driver: the statements' round trips (pg, the socket, planning) beyond execution", part(driverMs)],
    ['serialisation: JSON.stringify of the answer', part(split.serialiseMs)],
    ["pipeline: Express, Nest, validation, the handler's own code, headers, logging, metrics", part(pipelineMs)],
    ['outside the server: HTTP on the loopback, the load generator', part(outsideMs)],
    ['total as the client saw it (median)', `${ms(split.clientP50)} ms`],
    ['p99: client / server / SQL round trips', `${ms(split.clientP99)} / ${ms(split.serverP99)} / ${ms(split.sqlP99)} ms`],
  ];
  return format === 'text' ? textTable(['part', 'time'], rows, [false, true]) : markdownTable(['part', 'time'], rows, [false, true]);
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function memoryTable(memory: MemoryReport, format: 'text' | 'markdown'): string {
  const rows = [
    ['booted (migrations run, nothing seeded)', mib(memory.booted.rssBytes), mib(memory.booted.heapUsedBytes)],
    ['idle: seeded, warmed up, before the measurements', mib(memory.idle.rssBytes), mib(memory.idle.heapUsedBytes)],
    ['at the end of the throughput runs', mib(memory.afterLoad.rssBytes), mib(memory.afterLoad.heapUsedBytes)],
    ['the same after a full collection', mib(memory.afterLoadLive.rssBytes), mib(memory.afterLoadLive.heapUsedBytes)],
  ];
  const headers = ['server process', 'RSS', 'heap used'];
  return format === 'text' ? textTable(headers, rows, [false, true, true]) : markdownTable(headers, rows, [false, true, true]);
}

function syncTable(report: BenchReport, format: 'text' | 'markdown'): string {
  const headers = [
    'mode',
    'wall time',
    'service time',
    'looked up',
    'added',
    'updated',
    'removed',
    'failed',
    'company.json calls',
    'status',
  ];
  const rows = report.syncs.map((run) => [
    run.mode,
    seconds(run.wallMs),
    seconds(run.serviceMs),
    int(run.final.total ?? 0),
    int(run.final.added),
    int(run.final.updated),
    int(run.final.removed),
    int(run.final.failed),
    int(run.upstreamCalls['/api/company.json'] ?? 0),
    run.final.status + (run.final.last_error ? ` (${run.final.last_error})` : ''),
  ]);
  const right = [false, true, true, true, true, true, true, true, true, false];
  return format === 'text' ? textTable(headers, rows, right) : markdownTable(headers, rows, right);
}

function syncVerdicts(report: BenchReport): string[] {
  return report.syncs.map((run) => {
    if (run.mode === 'bootstrap') {
      const met = run.final.status === 'completed' && run.wallMs < BOOTSTRAP_SYNC_TARGET_MS;
      return `bootstrap stock sync < ${seconds(BOOTSTRAP_SYNC_TARGET_MS)}: ${met ? 'yes' : 'NO'} (${seconds(run.wallMs)})`;
    }
    return `incremental stock sync takes seconds: ${run.final.status === 'completed' && run.wallMs < 10_000 ? 'yes' : 'NO'} (${seconds(run.wallMs)})`;
  });
}

/** What the bench prints at the end. */
export function textReport(report: BenchReport): string {
  const s = report.settings;
  return [
    '',
    `Throughput: ${s.connections} connections, ${s.durationSec} s per run after ${s.warmupSec} s of warm-up; ` +
      `% of bare: a route's HIT and MISS over the bare run just before them, the bare rows over all quiet bare runs (${int(bareReference(report))} req/s)`,
    throughputTable(report, 'text'),
    '',
    `Uncached latency: 1 connection, one request at a time, ${s.sequentialSec} s (at most ${s.sequentialMax} requests) per route`,
    latencyTable(report, 'text'),
    '',
    'Targets',
    targetsTable(report, 'text'),
    '',
    ...(report.anchored.length > 0
      ? ['Cache hits against the anchors (medians of the alternating rounds)', anchoredTable(report).table, '']
      : []),
    'Uncached reads by data set size',
    scaleTable(report, 'text'),
    '',
    `Time split of the slowest uncached read (${report.split.route}, ${report.split.requests} requests one at a time)`,
    splitTable(report.split, 'text'),
    '',
    'Memory of the server process',
    memoryTable(report.memory, 'text'),
    '',
    ...syncVerdicts(report),
    '',
    `Stock sync (sandbox of ${int(report.syncCompanyCount)} corp codes, no added latency)`,
    syncTable(report, 'text'),
    '',
    ...report.warnings.map((warning) => `WARNING: ${warning}`),
    `Total run time: ${report.totalSec.toFixed(0)} s`,
    '',
  ].join('\n');
}

/**
 * The top of docs/benchmarks.md, the fixed prose above the generated sections: written when the page
 * is new, kept as it is otherwise. The findings and the dated runs are in docs/benchmarks-history.md, by hand.
 */
export const BENCHMARKS_PAGE_HEADER = [
  '# Benchmarks',
  '',
  'What `npm run bench` measures on this machine, and the numbers of its last run; `npm run bench:buckets` adds the',
  'shared rate-limit buckets at the end. Each writes only between its own `bench:…begin` and `bench:…end` markers,',
  'and everything between them is replaced on each run.',
  '',
  'The findings behind these numbers are in [benchmarks-history.md](benchmarks-history.md), written by hand: how the',
  'measurements changed, what profiles and collector traces showed (among them "Uncached reads: every request\'s',
  'objects outlived it", "Full collections and the HTTP cache", "Prepared statements"), each optimisation measured',
  'before and after, the dated runs and how fast this machine was at each.',
  '',
].join('\n');

export const GENERATED_BEGIN = '<!-- bench:begin — generated by `npm run bench`; everything up to bench:end is replaced on each run -->';
export const GENERATED_END = '<!-- bench:end -->';

/** The generated part of docs/benchmarks.md. */
export function markdownReport(report: BenchReport): string {
  const s = report.settings;
  const seed = report.seed;
  const m = report.machine;
  const reference = bareReference(report);
  const targets = targetRows(report);
  const hitsMet = targets.filter((row) => row.anchor?.throughputMet && row.anchor.p99Met).length;
  const sequentialMet = targets.filter((row) => row.sequentialMet).length;
  const atRateMet = targets.filter((row) => row.atRateMet).length;
  const out: string[] = [];
  out.push(GENERATED_BEGIN, '');
  out.push(
    `Last run: ${report.startedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC, ${report.totalSec.toFixed(0)} s in all ` +
      `(${seconds(report.seedMs)} of it seeding).`,
    '',
  );

  out.push('## Summary', '');
  out.push(
    report.anchored.length > 0
      ? `- Cache hits at ${pct(HIT_OF_NEST_TARGET)} of a bare NestJS app's throughput or more, with a p99 within ${HIT_P99_OF_NEST_TARGET}× of its p99: ` +
          `**${hitsMet} of ${targets.length} routes** (medians of ${report.anchored[0].hit.length} alternating rounds against an anchor process answering the same body).`
      : '- Cache hits against the anchors: not measured (`BENCH_ANCHOR_ROUNDS=0`).',
    `- Uncached reads under ${MISS_P99_TARGET_MS} ms at p99, one request at a time, with ${int(seed.counts.disclosures)} filings: **${sequentialMet} of ${targets.length} routes**.`,
    `- Uncached reads under ${AT_RATE_P99_TARGET_MS} ms at p99 at a fixed offered load of ${s.rate} requests/s, with ${int(seed.counts.disclosures)} filings: ` +
      `**${atRateMet} of ${targets.length} routes**.`,
    `- Memory of the server process: RSS ${mib(report.memory.idle.rssBytes)} at idle, ${mib(report.memory.afterLoad.rssBytes)} at the end of the throughput runs; ` +
      `live heap ${mib(report.memory.idle.heapUsedBytes)} at idle and ${mib(report.memory.afterLoadLive.heapUsedBytes)} after them.`,
    ...syncVerdicts(report).map((line) => `- ${line.charAt(0).toUpperCase()}${line.slice(1)}.`),
    `- The bare route itself ran at ${bareSpread(report)} req/s over this run: the machine's own variation from one ` +
      '5-second window to the next, so read every ratio below as give or take 15-20 %.',
    '',
  );
  out.push(targetsTable(report, 'markdown'), '');
  if (report.anchored.length > 0) {
    const anchored = anchoredTable(report);
    const rounds = report.anchored[0].hit.length;
    out.push(
      '## Cache hits against a bare NestJS app and node:http',
      '',
      `Two anchors, each a process of its own on this machine, answer the same body at the same URL: a bare NestJS app on the same Express adapter as the service (\`ServiceExpressAdapter\`) ` +
        `(one \`@Get\`, no middleware; it serialises the value) and \`node:http\` writing the prepared bytes. Each route: ${rounds} rounds of ` +
        `service, the service with tracing on, bare NestJS, node:http in turn, ${report.settings.connections} connections, ${report.settings.durationSec} s each; medians. ` +
        `Target met (≥ ${pct(HIT_OF_NEST_TARGET)} of the bare NestJS throughput and p99 within ${HIT_P99_OF_NEST_TARGET}×): **${anchored.met} of ${anchored.total} routes**. ` +
        'The targets are judged with tracing off, the default; "traced" is a second server process on the same database with OpenTelemetry on ' +
        '(`OTEL_EXPORTER_OTLP_ENDPOINT` set, every request a trace exported over OTLP to a loopback collector): its throughput against the untraced service is the cost of tracing.',
      '',
      anchored.table,
      '',
    );
  }
  if (report.warnings.length > 0) {
    out.push('Warnings of this run:', '', ...report.warnings.map((warning) => `- ${warning}`), '');
  }

  out.push('## Machine', '');
  out.push(
    markdownTable(
      ['', ''],
      [
        ['CPU', `${m.cpus} × ${m.cpuModel}`],
        ['memory', m.memory],
        ['OS', m.os],
        ['Node.js', m.node],
        ['PostgreSQL', `${m.postgres} (${m.postgresOrigin})`],
        [
          'PostgreSQL settings',
          Object.entries(m.postgresSettings)
            .map(([name, value]) => `${name}=${value}`)
            .join(', '),
        ],
      ],
      [false, false],
    ),
    '',
    'The server under test (a process of its own), PostgreSQL, the load generator (another Node.js process), the anchors and the bench ' +
      '(with the disclosure-system sandbox) share these cores, so every number is a whole-machine number.',
    '',
  );

  out.push('## How to run', '');
  out.push(
    '```sh',
    'npm ci',
    'npm run bench          # compiles bench/ and src/ into dist-bench/ with tsc, then runs dist-bench/bench/main.js',
    '```',
    '',
    'Without `TEST_DATABASE_URL` or `DATABASE_URL` the bench starts an embedded PostgreSQL in a temporary directory and removes it',
    'afterwards; with one of them set, it creates a database of its own on that server (the URL must be allowed to `CREATE DATABASE`)',
    'and drops it at the end. It needs nothing else and exits by itself, also after a failure or Ctrl-C.',
    '',
    markdownTable(
      ['variable', 'default', 'meaning'],
      [
        ['`TEST_DATABASE_URL`, `DATABASE_URL`', 'unset', 'PostgreSQL server to create the bench database on; unset: embedded'],
        ['`BENCH_CONNECTIONS`', '20', 'connections of each throughput run'],
        ['`BENCH_DURATION_S`', '5', 'seconds of each throughput run'],
        ['`BENCH_WARMUP_S`', '1', 'seconds of warm-up before each throughput run (not counted)'],
        ['`BENCH_SEQUENTIAL_S`', '3', 'seconds of each one-connection latency run'],
        ['`BENCH_RATE`', '100', 'requests/s offered in the fixed-load latency runs'],
        ['`BENCH_RATE_S`', '10', 'seconds of each fixed-load latency run'],
        ['`BENCH_ANCHOR_ROUNDS`', '3', 'alternating rounds of service, bare NestJS and node:http per cache hit (0: no anchors)'],
        [
          '`BENCH_FILINGS`',
          '1000000',
          'filings of the main data set; the uncached reads are also measured at 100,000 and 1,000,000 below it (smaller for a quick trial)',
        ],
        ['`BENCH_SYNC_COMPANIES`', '115000', 'corp codes in the sandbox for the stock sync'],
        [
          '`BENCH_RETRIES`',
          '1',
          'times a measurement is taken again when other processes used the CPU meanwhile (the least disturbed is kept)',
        ],
        ['`BENCH_RETRY_BUDGET`', '10', 'most such retries in one run'],
        ['`BENCH_QUIET_WAIT_S`', '60', 'how long to wait, before the HTTP measurements, for other processes to leave the CPU alone'],
        ['`BENCH_QUIET_BUDGET_S`', '150', 'most time one run spends waiting for quiet (before the measurements and before retries)'],
        ['`BENCH_WRITE_DOCS`', 'true', '`false`: print only, leave docs/benchmarks.md alone'],
      ],
      [false, false, false],
    ),
    '',
  );

  out.push('## Data set', '');
  out.push(
    markdownTable(
      ['what', 'value'],
      [
        ...Object.entries(seed.counts).map(([label, value]) => [label, int(value)]),
        ['filing dates', `${seed.firstDay} .. ${seed.today} (weekdays, plus today in KST whatever the weekday)`],
        [
          'analyses',
          Object.entries(seed.analyses)
            .map(([status, n]) => `${status} ${int(n)}`)
            .join(', '),
        ],
        ...seed.sizes.map((size) => [`size of ${size.relation} (with indexes)`, size.total]),
      ],
      [false, true],
    ),
    '',
    `Seeding took ${seconds(report.seedMs)} in all ` +
      '(set-based SQL: arrays through `unnest` for companies and helper tables, `generate_series` with seeded `random()` ' +
      'for filings and analyses; `synchronous_commit` off for the seeding session only):',
    '',
    markdownTable(
      ['step', 'time'],
      Object.entries(seed.timingsMs).map(([step, value]) => [step, seconds(value)]),
      [false, true],
    ),
    '',
    `Then, and again once the companies were read through the API: \`VACUUM ANALYZE\` and \`CHECKPOINT\`; then ${report.prewarm} ` +
      '(`pg_prewarm` of every table and index, when they fit in `shared_buffers`).',
    '',
    `Filers: ${int(seed.options.stocks)} listed companies (stocks, about a third on the main board Y) file ` +
      `${pct(seed.options.listedShare)} of the filings, skewed (a company's share falls with its rank, so a few file thousands of times and many a few dozen); ` +
      `${int(seed.options.unlisted)} unlisted filers file the rest. Receipt numbers are the filing date and a 6-digit sequence of the day. ` +
      `Business days carry 1,600 to 2,400 filings, today ${int(seed.options.filingsToday)}. ` +
      'About 90 % of the analyses are COMPLETED with a one-liner and a small result document; the newest 200 filings and about 4 % of the rest are PENDING, about 6 % UNAVAILABLE.',
    '',
  );

  out.push('## HTTP results', '');
  out.push(
    `Start-up: ${Object.entries(report.boot)
      .map(([step, value]) => `${step} ${seconds(value)}`)
      .join(', ')}.`,
    '',
    `### Throughput (${s.connections} connections, ${s.durationSec} s per run after ${s.warmupSec} s of warm-up)`,
    '',
    throughputTable(report, 'markdown'),
    '',
    '- **HIT**: the same URL again and again; the first request fills the HTTP cache, all others are answered from it.',
    '- **MISS**: a URL never asked before on every request, so the HTTP cache never answers (how, per route, below).',
    "- **SQL/req**: statements the services sent per request, counted at the application's DataSource: about 0 for hits proves they " +
      'were served by the cache, 1 or more for misses proves the database was read.',
    "- **% of bare**: a route's HIT and MISS req/s divided by the req/s of the bare route measured just before them " +
      '(so a slow drift of the machine does not enter the ratio); the bare and bare-large rows are divided by the mean of all ' +
      `bare runs that other processes did not disturb (${int(reference)} req/s). The bare route ` +
      "(`GET /bench/bare`) answers a constant array of 10 small objects, about 250 bytes, from a controller of the bench's own root module, " +
      'through the same Express pipeline: request log, rate limits, CORS, body parsers, global pipe and exception filter.',
    '- **bench/bare-large**: the same kind of route answering a constant list of 50 filings (about 16 kB), not cached: what a ' +
      "response of that size costs in this pipeline without any cache or database, to tell the cache's own cost from the payload's.",
    `- **other CPU**: cores that processes outside the bench used during the run (from /proc; PostgreSQL's processes count as the bench's); above ${FOREIGN_LOAD_THRESHOLD} the run ` +
      'was taken again once they had stopped (see `BENCH_RETRIES`) and the least disturbed attempt kept.',
    "- latencies are measured by the load generator per response (autocannon's `response` event, sub-millisecond); under a closed " +
      `loop of ${s.connections} connections they are mostly queueing: latency ≈ connections ÷ throughput.`,
    '',
    `### Uncached latency (1 connection, one request at a time, ${s.sequentialSec} s per route)`,
    '',
    latencyTable(report, 'markdown'),
    '',
    'This is the time one uncached request takes end to end (HTTP, pipeline, SQL, JSON) when it does not wait behind others: ' +
      `the figure the ${MISS_P99_TARGET_MS} ms target is judged on. The loaded p99 is in the table above and in the targets table.`,
    '',
    '### Uncached reads by data set size',
    '',
    `Each size is a database of its own, seeded the same way, with the server under test started on it (${report.scale
      .map((step) => `${int(step.filings)} filings seeded in ${seconds(step.seedMs)}`)
      .join(', ')}). Per route: the SQL's execution time (EXPLAIN ANALYZE, warm), the misses one request at a time ` +
      `(${s.sequentialSec} s), and the misses at a fixed offered load of ${s.rate} requests/s over ${s.rateConnections} connections for ${s.rateSec} s ` +
      "(an open loop: one request every 1/rate s, each timed from its due moment; well below saturation, so the latency is service time and not queueing; autocannon's `-R` would send each second's requests at once). `BENCH_FILINGS=10000000` adds a row per route at 10,000,000.",
    '',
    scaleTable(report, 'markdown'),
    '',
    `### Where the time of the slowest uncached read goes (${report.split.route})`,
    '',
    `${int(report.split.requests)} misses one request at a time. The server process timed each request from its arrival (before Express) to the last byte ` +
      "handed to the socket, and the round trips of its SQL statements at the DataSource's query runners; serialisation is `JSON.stringify` of the answer's value " +
      "timed on its own in the server process; execution is PostgreSQL's from the query plan. Medians, so the parts add up to about the total:",
    '',
    splitTable(report.split, 'markdown'),
    '',
    '### Memory',
    '',
    'The server runs in a process of its own (as in production), so its memory is its own:',
    '',
    memoryTable(report.memory, 'markdown'),
    '',
    "What is kept per client input is bounded: the HTTP cache's answers (and the fast lane's stored bytes) are LRUs bounded in entries and bytes, " +
      "the stock search's own cache is an LRU of 10,000 terms, the rate limiter's buckets an LRU per client address, and the metrics' series " +
      'are keyed by route templates and status codes, never by a raw URL. The live heap after a full collection, before and after the throughput runs, shows it.',
    '',
    '### How the misses avoid the cache',
    '',
    markdownTable(
      ['route', 'miss URLs'],
      report.routes.map((route) => [route.scenario.name, route.scenario.missHow]),
      [false, false],
    ),
    '',
    `Before the measurements, ${int(report.companiesPreRead.requests)} companies were read once through ` +
      '`/api/v1/companies/{corpCode}` (each fetched from the sandbox and stored): ' +
      `${int(report.companiesPreRead.rps)} req/s with 8 connections, p50 ${ms(report.companiesPreRead.p50)} ms, p99 ${ms(report.companiesPreRead.p99)} ms ` +
      '(the first-read path, which includes a company.json call to the in-process sandbox).',
    '',
  );

  out.push('## Query plans', '');
  out.push(
    "Each statement below was captured from one uncached request to the running server (the services' SQL as it is, with the " +
      'parameters the request produced), then run as `EXPLAIN (ANALYZE, BUFFERS)` three times on the seeded database; the third (warm) run is shown. ' +
      'The service prepares these statements on each connection (src/database/prepared-statements.ts), so each was prepared the same way and ' +
      'executed five times first: after that PostgreSQL either keeps one generic plan for every execution (planning then costs next to nothing) ' +
      'or plans each execution for its parameters (custom), whichever it estimates cheaper. The plan column says which it chose.',
    '',
    markdownTable(
      ['route', 'parameters', 'plan', 'planning ms', 'execution ms'],
      report.plans.map((plan) => [
        plan.scenario,
        plan.note,
        plan.cachedPlan ?? 'unprepared',
        plan.planningMs.toFixed(3),
        plan.executionMs.toFixed(3),
      ]),
      [false, false, false, true, true],
    ),
    '',
  );
  for (const plan of report.plans) {
    if (plan.variant) {
      out.push(`Variant: ${plan.note}, parameters \`${JSON.stringify(plan.params)}\`:`, '');
    } else {
      out.push(
        `### ${plan.scenario}`,
        '',
        `\`GET ${plan.url}\` (${plan.note}), parameters \`${JSON.stringify(plan.params)}\`:`,
        '',
        '```sql',
        plan.sql,
        '```',
        '',
      );
    }
    out.push('```', plan.plan, '```', '');
  }

  out.push('## Stock sync', '');
  out.push(
    `Against the sandbox with ${int(report.syncCompanyCount)} corp codes and no added latency, ` +
      '`DART_REQUESTS_PER_MINUTE=1000000`, started with `POST /api/v1/admin/stocks/sync?mode=…` (X-Admin-Key) and polled every 50 ms at ' +
      '`GET /api/v1/admin/stocks/sync/status`. Wall time runs from the POST to the first poll that shows the run finished; ' +
      "service time is `finished_at − started_at`. The sandbox's corpCode.xml archive is built before the first run, as the real " +
      'system serves a prepared file. The incremental run follows the bootstrap immediately.',
    '',
    syncTable(report, 'markdown'),
    '',
    ...syncVerdicts(report).map((line) => `- ${line.charAt(0).toUpperCase()}${line.slice(1)}.`),
    '',
  );
  out.push(GENERATED_END);
  return out.join('\n');
}
