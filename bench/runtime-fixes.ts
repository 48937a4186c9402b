/**
 * `npm run bench:runtime-fixes`: what each runtime fix (src/runtime-fixes/) still buys on this
 * Node.js. For each round, one server process per variant (every fix on, or one fix off:
 * runtime-fixes-off.ts), in an order that turns each round, with the same loads through real
 * HTTP: cache hits at 20 connections, misses of a 50-filing page one at a time and at 20
 * connections. Prints the medians and, per fix, the ratio "fix on / fix off" of each round's pair
 * (median and range). With BENCH_RUNTIME_FIX_TOGGLE=prom-client-fast-metrics, instead: one server per
 * round recording with both the fast families and prom-client's, switched between bursts of cache
 * hits (BENCH_RUNTIME_FIX_BURSTS pairs), for an effect smaller than the difference between two
 * processes. Prints only; docs/operations.md, "Runtime fixes", keeps the figures.
 */
import 'reflect-metadata';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { startPostgresServer } from '../test/support/postgres-server';
import { createDatabase } from '../test/support/test-database';
import { createCleanups, createLog, envNumber, runBenchmark } from './harness';
import { startLoadClient } from './load-client';
import type { LoadJob, LoadResult, UrlSource } from './load-protocol';
import { RUNTIME_FIXES, type RuntimeFixStats } from './runtime-fixes-off';
import { buildScenarios } from './scenarios';
import { DEFAULT_SEED, prewarmDatabase, seedDatabase, settleDatabase } from './seed';
import { BenchServer } from './server-client';

const log = createLog('runtime-fixes');
const cleanups = createCleanups(log);

const PHASES = ['hit20', 'miss1', 'miss20'] as const;
type Phase = (typeof PHASES)[number];
interface Measured {
  rps: number;
  p99: number;
  promotedBytesPerRequest: number;
  youngCollectionMsPer1000: number;
  cpuMicrosPerRequest: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main(): Promise<void> {
  const variants = (process.env.BENCH_RUNTIME_FIXES ?? Object.keys(RUNTIME_FIXES).join(',')).split(',').filter(Boolean);
  for (const name of variants) if (!(name in RUNTIME_FIXES)) throw new Error(`BENCH_RUNTIME_FIXES: no runtime fix ${name}`);
  const rounds = envNumber('BENCH_RUNTIME_FIX_ROUNDS', 6, 1, 50);
  const seconds = envNumber('BENCH_DURATION_S', 5, 1, 60);
  const filings = envNumber('BENCH_FILINGS', 100_000, 10_000, 10_000_000);
  const statsFile = path.join(os.tmpdir(), `bench-runtime-fixes-${process.pid}`);
  process.env.BENCH_RUNTIME_FIX_STATS = statsFile;
  const preload = path.join(__dirname, 'runtime-fixes-off.js');

  const postgres = await startPostgresServer('runtime-fixes', log);
  cleanups.push({ label: `PostgreSQL (${postgres.origin})`, run: () => postgres.stop() });
  const database = await createDatabase(postgres.adminUrl, 'briefing_runtime_fixes');
  cleanups.push({ label: `database ${database.name}`, run: () => database.drop() });
  const start = () =>
    BenchServer.start({ databaseUrl: database.url, dartBaseUrl: 'http://127.0.0.1:9', dartApiKey: 'x'.repeat(40) }, ['-r', preload]);

  // Seeded once (the first server runs the migrations); each variant's server then starts with an empty HTTP cache.
  const seeding = await start();
  const client = new Client({ connectionString: database.url, application_name: 'bench' });
  await client.connect();
  const seed = await seedDatabase(client, { ...DEFAULT_SEED, filings }, log);
  await settleDatabase(client);
  log(await prewarmDatabase(client));
  const scenarios = await buildScenarios(client, { report: seed, companyCodes: [], searchTermCount: 1_000 });
  await client.end();
  await seeding.close();
  const hitScenario = scenarios.find((scenario) => scenario.name === 'disclosures/{rceptNo}')!;
  const missScenario = scenarios.find((scenario) => scenario.name === 'disclosures?corpCode=')!;

  const load = startLoadClient();
  cleanups.push({ label: 'load generator', run: () => load.close() });
  let busts = 0;
  const hits: UrlSource = { urls: [hitScenario.hitUrl], offset: 0, bust: null, repeats: true };
  const misses = (): UrlSource => ({ urls: missScenario.missUrls, offset: 0, bust: `m${busts++}-` });
  const jobOf = (origin: string, phase: Phase): LoadJob =>
    phase === 'miss1'
      ? { origin, kind: 'sequential', connections: 1, durationSec: seconds, warmupSec: 0, maxRequests: 1_000_000, source: misses() }
      : { origin, kind: 'load', connections: 20, durationSec: seconds, warmupSec: 0, source: phase === 'hit20' ? hits : misses() };

  const stats = async (pid: number): Promise<RuntimeFixStats> => {
    const file = `${statsFile}-${pid}.json`;
    rmSync(file, { force: true });
    process.kill(pid, 'SIGUSR2');
    for (let attempt = 0; attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      try {
        const counted = JSON.parse(readFileSync(file, 'utf8')) as RuntimeFixStats;
        rmSync(file, { force: true });
        return counted;
      } catch {
        // not written yet
      }
    }
    throw new Error(`the server (pid ${pid}) wrote no statistics`);
  };

  const toggle = process.env.BENCH_RUNTIME_FIX_TOGGLE;
  if (toggle) {
    process.env.BENCH_RUNTIME_FIX_OFF = '';
    const bursts = envNumber('BENCH_RUNTIME_FIX_BURSTS', 30, 1, 1000);
    const ratios: { cpu: number[]; rps: number[] } = { cpu: [], rps: [] };
    const cpu: Record<'fast' | 'prom-client', number[]> = { fast: [], 'prom-client': [] };
    for (let round = 0; round < rounds; round++) {
      const server = await start();
      try {
        const measure = async (mode: 'fast' | 'prom-client') => {
          writeFileSync(`${statsFile}-${server.pid}.mode`, mode);
          await stats(server.pid!);
          const result = await load.call(jobOf(server.origin, 'hit20'));
          return { rps: result.rps, cpuMicros: (await stats(server.pid!)).cpuMicros / result.requests };
        };
        for (const mode of ['fast', 'prom-client', 'fast'] as const) await measure(mode);
        for (let burst = 0; burst < bursts; burst++) {
          const order = burst % 2 === 0 ? (['fast', 'prom-client'] as const) : (['prom-client', 'fast'] as const);
          const measured: Partial<Record<'fast' | 'prom-client', { rps: number; cpuMicros: number }>> = {};
          for (const mode of order) measured[mode] = await measure(mode);
          const { fast, 'prom-client': other } = measured as Record<'fast' | 'prom-client', { rps: number; cpuMicros: number }>;
          ratios.cpu.push(fast.cpuMicros / other.cpuMicros);
          ratios.rps.push(fast.rps / other.rps);
          cpu.fast.push(fast.cpuMicros);
          cpu['prom-client'].push(other.cpuMicros);
        }
        log(`round ${round + 1}: ${bursts} pairs of bursts`);
      } finally {
        rmSync(`${statsFile}-${server.pid}.mode`, { force: true });
        await server.close();
      }
    }
    const quartiles = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return `${sorted[Math.floor(sorted.length / 4)].toFixed(2)}-${sorted[Math.floor((3 * sorted.length) / 4)].toFixed(2)}`;
    };
    process.stdout.write(
      [
        `Node.js ${process.version}: ${toggle}, cache hits at 20 connections, ${rounds} server(s), ${ratios.cpu.length} pairs of ${seconds}-s bursts`,
        `  server CPU per request: fast ${median(cpu.fast).toFixed(1)} µs, prom-client ${median(cpu['prom-client']).toFixed(1)} µs; ` +
          `fast / prom-client median ${median(ratios.cpu).toFixed(3)} (interquartile ${quartiles(ratios.cpu)}), lower in ${ratios.cpu.filter((r) => r < 1).length} of ${ratios.cpu.length}`,
        `  req/s: fast / prom-client median ${median(ratios.rps).toFixed(3)} (interquartile ${quartiles(ratios.rps)})`,
        '',
      ].join('\n'),
    );
    return;
  }

  const all = ['on', ...variants];
  const results: Record<string, Record<Phase, Measured>[]> = Object.fromEntries(all.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    const turned = all.map((_, i) => all[(i + round) % all.length]);
    for (const variant of round % 2 === 0 ? turned : turned.reverse()) {
      process.env.BENCH_RUNTIME_FIX_OFF = variant === 'on' ? '' : variant;
      const server = await start();
      try {
        // Warm-up: both paths compiled, the hit URL cached.
        await load.call({ ...jobOf(server.origin, 'hit20'), durationSec: 2 });
        await load.call({ ...jobOf(server.origin, 'miss20'), durationSec: 2 });
        const row = {} as Record<Phase, Measured>;
        for (const phase of PHASES) {
          await stats(server.pid!);
          const result: LoadResult = await load.call(jobOf(server.origin, phase));
          const counted = await stats(server.pid!);
          const bad = Object.keys(result.statuses).filter((status) => !status.startsWith('2'));
          if (bad.length > 0) throw new Error(`${variant} ${phase}: answers ${JSON.stringify(result.statuses)}`);
          row[phase] = {
            rps: result.rps,
            p99: result.p99,
            promotedBytesPerRequest: counted.promotedBytes / result.requests,
            youngCollectionMsPer1000: (counted.youngCollectionMs * 1000) / result.requests,
            cpuMicrosPerRequest: counted.cpuMicros / result.requests,
          };
        }
        results[variant].push(row);
        log(
          `round ${round + 1}, ${variant === 'on' ? 'every fix on' : `${variant} off`}: ` +
            PHASES.map((phase) => `${phase} ${Math.round(row[phase].rps)} req/s p99 ${row[phase].p99.toFixed(2)} ms`).join('; '),
        );
      } finally {
        await server.close();
      }
    }
  }

  const metrics: [keyof Measured, string][] = [
    ['rps', 'req/s'],
    ['p99', 'p99 ms'],
    ['promotedBytesPerRequest', 'promoted B/request'],
    ['youngCollectionMsPer1000', 'young-collection ms/1000 requests'],
    ['cpuMicrosPerRequest', 'server CPU µs/request'],
  ];
  const lines = [`Node.js ${process.version}, ${filings.toLocaleString('en-US')} filings, ${rounds} rounds of ${seconds} s per load`, ''];
  for (const phase of PHASES) {
    lines.push(`${phase}: medians (${metrics.map(([, unit]) => unit).join(', ')})`);
    for (const variant of all) {
      const label = variant === 'on' ? 'every fix on' : `${variant} off`;
      lines.push(
        `  ${label.padEnd(32)} ${metrics.map(([key]) => median(results[variant].map((row) => row[phase][key])).toPrecision(4)).join(', ')}`,
      );
    }
    for (const variant of variants) {
      const ratios = metrics.map(([key, unit]) => {
        const each = results.on.map((row, round) => row[phase][key] / results[variant][round][phase][key]);
        return `${unit} ${median(each).toFixed(2)} (${Math.min(...each).toFixed(2)}-${Math.max(...each).toFixed(2)})`;
      });
      lines.push(`  ${`${variant}: on / off`.padEnd(32)} ${ratios.join(', ')}`);
    }
    lines.push('');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

runBenchmark(main, log, cleanups);
