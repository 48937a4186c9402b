/**
 * Preloaded (`node -r`) into the server under test by `npm run bench:runtime-fixes`: switches off
 * the runtime fixes named in BENCH_RUNTIME_FIX_OFF (src/runtime-fixes/, docs/operations.md,
 * "Runtime fixes") by replacing what the service imports before it loads, and counts the young
 * collections. On SIGUSR2 it writes what it counted since the last signal to
 * `<BENCH_RUNTIME_FIX_STATS>-<pid>.json`. With BENCH_RUNTIME_FIX_TOGGLE=prom-client-fast-metrics the
 * server records with both the fast families and prom-client's, switched on each SIGUSR2 by the word
 * (`fast` or `prom-client`) in `<BENCH_RUNTIME_FIX_STATS>-<pid>.mode`: an effect too small to tell
 * between two processes is measured within one. The service's own code is not changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import { Client, type QueryConfig } from 'pg';
import { Counter, Histogram, type Registry } from 'prom-client';
import * as asyncResourceBind from '../src/runtime-fixes/async-resource-bind/async-resource-bind';
import * as fastMetrics from '../src/runtime-fixes/prom-client-fast-metrics/fast-metrics';
import { PostgresClient } from '../src/database/postgres-client';
import { preparedStatementName } from '../src/database/prepared-statements';

/** What one signal's file holds. */
export interface RuntimeFixStats {
  /** Bytes the old generation grew by between young collections (promoted, or allocated there), full collections left out. */
  promotedBytes: number;
  youngCollections: number;
  youngCollectionMs: number;
  fullCollections: number;
  /** CPU time of the process (user and system). */
  cpuMicros: number;
}

export const RUNTIME_FIXES = {
  'async-resource-bind': () => {
    (asyncResourceBind as { installLeanAsyncResourceBind: () => void }).installLeanAsyncResourceBind = () => undefined;
  },
  'pg-query-callback': () => {
    // pg's promise form (the callback assigned after the query is built) and its query_timeout, as before the fix.
    PostgresClient.prototype.query = function (this: PostgresClient, ...args: unknown[]) {
      const [text, values] = args;
      const own = Client.prototype.query as (...forwarded: unknown[]) => unknown;
      if (typeof text !== 'string' || args.length > 2 || !(values === undefined || Array.isArray(values))) return own.apply(this, args);
      const name = preparedStatementName(text);
      const config: QueryConfig & { query_timeout?: number } = name === undefined ? { text, values } : { name, text, values };
      if (this.readTimeoutMs !== undefined) config.query_timeout = this.readTimeoutMs;
      return own.call(this, config);
    } as Client['query'];
  },
  'prom-client-fast-metrics': () => {
    // prom-client's own families; a series is a labelled child, which validates and hashes its labels on each call.
    const exported = fastMetrics as Record<string, unknown>;
    exported.FastHistogram = class {
      private readonly family: Histogram;
      constructor(name: string, help: string, labelNames: readonly string[], upperBounds: readonly number[], registry: Registry) {
        this.family = new Histogram({ name, help, labelNames: [...labelNames], buckets: [...upperBounds], registers: [registry] });
      }
      series(...values: string[]) {
        return this.family.labels(...values);
      }
      get() {
        return this.family.get();
      }
    };
    exported.FastCounter = class {
      private readonly family: Counter;
      constructor(name: string, help: string, labelNames: readonly string[], registry: Registry) {
        this.family = new Counter({ name, help, labelNames: [...labelNames], registers: [registry] });
      }
      series(...values: string[]) {
        return this.family.labels(...values);
      }
      get() {
        return this.family.get();
      }
    };
  },
} as const;

export type RuntimeFixName = keyof typeof RUNTIME_FIXES;

/** Both recorders in the process; each series records into the fast one or prom-client's by `recorder.promClient`. */
function installMetricsToggle(recorder: { promClient: boolean }): void {
  const exported = fastMetrics as Record<string, unknown>;
  exported.FastHistogram = class extends fastMetrics.FastHistogram {
    private readonly other: Histogram;
    constructor(name: string, help: string, labelNames: readonly string[], upperBounds: readonly number[], registry: Registry) {
      super(name, help, labelNames, upperBounds, registry);
      this.other = new Histogram({ name, help, labelNames: [...labelNames], buckets: [...upperBounds], registers: [] });
    }
    override series(...values: string[]) {
      const fast = super.series(...values);
      const other = this.other.labels(...values);
      return { observe: (seconds: number) => (recorder.promClient ? other.observe(seconds) : fast.observe(seconds)) } as never;
    }
  };
  exported.FastCounter = class extends fastMetrics.FastCounter {
    private readonly other: Counter;
    constructor(name: string, help: string, labelNames: readonly string[], registry: Registry) {
      super(name, help, labelNames, registry);
      this.other = new Counter({ name, help, labelNames: [...labelNames], registers: [] });
    }
    override series(...values: string[]) {
      const fast = super.series(...values);
      const other = this.other.labels(...values);
      return { inc: () => (recorder.promClient ? other.inc() : fast.inc()) } as never;
    }
  };
}

function install(): void {
  for (const name of (process.env.BENCH_RUNTIME_FIX_OFF ?? '').split(',').filter(Boolean)) {
    const switchOff = RUNTIME_FIXES[name as RuntimeFixName];
    if (switchOff === undefined)
      throw new Error(`BENCH_RUNTIME_FIX_OFF: no runtime fix ${name} (${Object.keys(RUNTIME_FIXES).join(', ')})`);
    switchOff();
  }
  const recorder = { promClient: false };
  const toggle = process.env.BENCH_RUNTIME_FIX_TOGGLE;
  if (toggle === 'prom-client-fast-metrics') installMetricsToggle(recorder);
  else if (toggle)
    throw new Error(`BENCH_RUNTIME_FIX_TOGGLE: only prom-client-fast-metrics can be switched within a process (got ${toggle})`);

  const oldSpaceUsed = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;
  let oldBefore = oldSpaceUsed();
  let cpuSince = process.cpuUsage();
  let stats: RuntimeFixStats = { promotedBytes: 0, youngCollections: 0, youngCollectionMs: 0, fullCollections: 0, cpuMicros: 0 };
  new PerformanceObserver((list) => {
    let full = false;
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } | null }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        stats.youngCollections += 1;
        stats.youngCollectionMs += entry.duration;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        stats.fullCollections += 1;
        full = true;
      }
    }
    const oldNow = oldSpaceUsed();
    if (!full && oldNow > oldBefore) stats.promotedBytes += oldNow - oldBefore;
    oldBefore = oldNow;
  }).observe({ entryTypes: ['gc'] });
  const file = process.env.BENCH_RUNTIME_FIX_STATS;
  process.on('SIGUSR2', () => {
    if (file && toggle) {
      try {
        recorder.promClient = readFileSync(`${file}-${process.pid}.mode`, 'utf8').trim() === 'prom-client';
      } catch {
        // no mode written yet: the fast families
      }
    }
    const cpu = process.cpuUsage(cpuSince);
    if (file) writeFileSync(`${file}-${process.pid}.json`, JSON.stringify({ ...stats, cpuMicros: cpu.user + cpu.system }));
    cpuSince = process.cpuUsage();
    stats = { promotedBytes: 0, youngCollections: 0, youngCollectionMs: 0, fullCollections: 0, cpuMicros: 0 };
  });
}

// Only in the server under test; the bench imports this file for the names of the fixes.
if (/server-process\.js$/.test(process.argv[1] ?? '')) install();
