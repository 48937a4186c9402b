// Shared helpers for the job-library experiments (bench/job-libraries/scripts).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import pg from 'pg';

export const PG_BASE = 'postgres://postgres@127.0.0.1:5432/';
export const dbUrl = (db) => PG_BASE + db;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** One JSON line per event on stdout; the orchestrator reads them. */
export const emit = (ev) => process.stdout.write(JSON.stringify({ t: Date.now(), pid: process.pid, ...ev }) + '\n');

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
};

/** Runs one SQL statement on a fresh connection (to the `postgres` database unless told). */
export async function sql(text, params = [], db = 'postgres') {
  const c = new pg.Client({ connectionString: dbUrl(db) });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

/**
 * A child worker process whose stdout JSON lines become events. `onEvent(ev, child)` is
 * called for each; all events are kept in `child.events`.
 */
export function spawnWorker(script, name, env, onEvent) {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env, WORKER_NAME: name },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.workerName = name;
  child.events = [];
  child.alive = true;
  child.on('exit', () => (child.alive = false));
  createInterface({ input: child.stdout }).on('line', (line) => {
    let ev;
    try {
      ev = JSON.parse(line);
    } catch {
      return;
    }
    ev.worker = name;
    child.events.push(ev);
    onEvent?.(ev, child);
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (process.env.SHOW_STDERR) console.error(`[${name}] ${line}`);
  });
  return child;
}

/** Waits until predicate() is true, polling every `everyMs`; rejects after `timeoutMs`. */
export async function waitFor(predicate, timeoutMs, everyMs = 20) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = predicate();
    if (v) return v;
    await sleep(everyMs);
  }
  return null;
}
