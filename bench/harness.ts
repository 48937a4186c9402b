import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/** What every benchmark script needs: a timed log, numeric settings, cleanup that also runs on Ctrl-C, and its results page. */

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * Writes a benchmark's results to docs/<name> (`compose` gets the page as it is, or
 * null), unless BENCH_WRITE_DOCS=false; the results are printed either way.
 */
export async function writeResultsPage(
  name: string,
  compose: (existing: string | null) => string,
  log: (line: string) => void,
): Promise<void> {
  if ((process.env.BENCH_WRITE_DOCS ?? 'true') === 'false') return;
  const file = path.join(ROOT, 'docs', name);
  const existing = await fs.readFile(file, 'utf8').catch(() => null);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, compose(existing));
  log(`wrote ${path.relative(ROOT, file)}`);
}

/**
 * The Node.js flags production starts the service with: those of `start:prod` in
 * package.json, which the Dockerfile's CMD repeats (test/e2e/packaging.e2e-spec.ts).
 * Every process that answers the bench's HTTP requests runs with them.
 */
export function serviceNodeFlags(): string[] {
  const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [command, ...words] = packageJson.scripts['start:prod'].split(/\s+/);
  if (command !== 'node') throw new Error(`start:prod does not start with node: ${packageJson.scripts['start:prod']}`);
  return words.filter((word) => word.startsWith('--'));
}

export function createLog(prefix: string): (line: string) => void {
  const startedAt = performance.now();
  return (line) => {
    const elapsed = ((performance.now() - startedAt) / 1000).toFixed(1).padStart(6);
    process.stdout.write(`[${prefix} ${elapsed} s] ${line}\n`);
  };
}

export function envNumber(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new Error(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
  return value;
}

export interface Cleanups {
  push(step: { label: string; run: () => Promise<void> }): void;
  /** Undoes every step in reverse order, each on its own, once. */
  cleanUp(): Promise<void>;
  /** Undoes one pushed step now (a resource the run is done with) instead of at the end. */
  runEarly(step: { label: string; run: () => Promise<void> }): Promise<void>;
}

/** Cleanup steps undone in reverse order, also on SIGINT/SIGTERM. */
export function createCleanups(log: (line: string) => void): Cleanups {
  const steps: { label: string; run: () => Promise<void> }[] = [];
  let cleaning: Promise<void> | undefined;
  const cleanUp = (): Promise<void> => {
    cleaning ??= (async () => {
      for (let step = steps.pop(); step !== undefined; step = steps.pop()) {
        try {
          await step.run();
          log(`cleaned up: ${step.label}`);
        } catch (error) {
          log(`cleaning up ${step.label} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        }
      }
    })();
    return cleaning;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  const runEarly = async (step: { label: string; run: () => Promise<void> }): Promise<void> => {
    const index = steps.indexOf(step);
    if (index === -1) return;
    steps.splice(index, 1);
    await step.run();
    log(`done with: ${step.label}`);
  };
  return { push: (step) => steps.push(step), cleanUp, runEarly };
}

/** Runs a benchmark's `main`: a failure is logged with its stack and fails the process; the cleanups run either way. */
export function runBenchmark(main: () => Promise<void>, log: (line: string) => void, cleanups: Cleanups): void {
  main()
    .catch((error: unknown) => {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exitCode = 1;
    })
    .finally(() => cleanups.cleanUp());
}

/** The `## Machine` section of a results page: cores, memory, Node.js and the PostgreSQL the run used. */
export function machineSection(postgres: string): string[] {
  return [
    '## Machine',
    '',
    '|  |  |',
    '| --- | --- |',
    `| CPU | ${os.availableParallelism()} × ${os.cpus()[0]?.model.trim() ?? 'unknown'} |`,
    `| memory | ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB |`,
    `| Node.js | ${process.version} |`,
    `| PostgreSQL | ${postgres} |`,
  ];
}

/** Ends a forked helper process: it exits when its IPC channel closes; killed if it has not within 5 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
