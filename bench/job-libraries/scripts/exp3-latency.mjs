// Experiment 3: enqueue-to-start latency. One idle worker process; the orchestrator enqueues
// 200 jobs one at a time (each after the previous one started, plus a random pause of 0 to
// PAUSE_MS: the poll interval for the polling configurations, so that each enqueue falls at a
// random point of the worker's poll cycle; 250 ms for the NOTIFY ones),
// and measures from just before the enqueue call to the handler's first line (same clock:
// both processes on this machine). 5 warm-up jobs are not counted. REPS repetitions, each
// with a fresh worker process.
//   CONFIG=boss-poll2 | boss-poll0.5 | boss-notify | gw-poll2000
import { writeFileSync } from 'node:fs';
import { PgBoss } from 'pg-boss';
import { makeWorkerUtils, Logger } from 'graphile-worker';
import { bossSetup } from './boss-setup.mjs';
import { gwSetup } from './gw-setup.mjs';
import { dbUrl, sleep, spawnWorker, waitFor, median, pct, sql } from './common.mjs';

const CONFIG = process.env.CONFIG;
const N = Number(process.env.N ?? 200);
const REPS = Number(process.env.REPS ?? 3);
const PAUSE_MS = Number(process.env.PAUSE_MS ?? { 'boss-poll2': 2000, 'boss-poll0.5': 500 }[process.env.CONFIG] ?? 250);
const LIB = CONFIG.startsWith('boss') ? 'boss' : 'gw';
const db = `joblibs_lat_${LIB}`;
const log = (...a) => console.log(new Date().toISOString().slice(11, 23), ...a);
const script = new URL(LIB === 'boss' ? './boss-worker.mjs' : './gw-worker.mjs', import.meta.url).pathname;

await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
await sql(`CREATE DATABASE ${db}`);
const reps = [];
for (let rep = 1; rep <= REPS; rep++) {
  let env;
  let enqueue;
  let close;
  if (LIB === 'boss') {
    const notify = CONFIG === 'boss-notify';
    await bossSetup(db, { notify, withTick: false });
    env = { DB: db, ROLES: 'lat', PROFILE: 'default', NOTIFY: notify ? '1' : '0', LAT_POLL_S: CONFIG === 'boss-poll0.5' ? '0.5' : '2' };
    const producer = new PgBoss({ connectionString: dbUrl(db), supervise: false, schedule: false });
    await producer.start();
    enqueue = (n) => producer.send('lat', { n });
    close = () => producer.stop({ graceful: false });
  } else {
    await gwSetup(db);
    env = { DB: db, ROLES: 'lat', PROFILE: 'default' };
    const utils = await makeWorkerUtils({ connectionString: dbUrl(db), logger: new Logger(() => () => {}) });
    enqueue = (n) => utils.addJob('lat', { n });
    close = () => utils.release();
  }
  const w = spawnWorker(script, 'w1', env);
  await waitFor(() => w.events.some((e) => e.ev === 'working'), 30000);
  await sleep(3000);
  const lat = [];
  const sendMs = [];
  for (let n = -5; n < N; n++) {
    await sleep(Math.random() * PAUSE_MS);
    const t0 = Date.now();
    await enqueue(n);
    sendMs.push(Date.now() - t0);
    const ev = await waitFor(() => w.events.find((e) => e.ev === 'start' && e.n === n), 60000, 1);
    if (!ev) throw new Error(`job ${n} never started`);
    if (n >= 0) lat.push(ev.t - t0);
    await sleep(20);
  }
  w.kill('SIGTERM');
  await close();
  await waitFor(() => w.exitCode !== null || w.signalCode !== null, 8000);
  const r = { rep, p50: pct(lat, 50), p95: pct(lat, 95), mean: lat.reduce((a, b) => a + b, 0) / lat.length, max: Math.max(...lat), min: Math.min(...lat), enqueueCallP50: pct(sendMs, 50), samples: lat };
  reps.push(r);
  log(CONFIG, `rep ${rep}: p50 ${r.p50} ms, p95 ${r.p95} ms, mean ${r.mean.toFixed(1)} ms, max ${r.max} ms, enqueue call p50 ${r.enqueueCallP50} ms`);
}
await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
const result = { config: CONFIG, n: N, pauseMs: PAUSE_MS, reps, median: { p50: median(reps.map((r) => r.p50)), p95: median(reps.map((r) => r.p95)), mean: median(reps.map((r) => r.mean)), max: median(reps.map((r) => r.max)) } };
writeFileSync(new URL(`../results/exp3-${CONFIG}.json`, import.meta.url).pathname, JSON.stringify(result, null, 2));
log(CONFIG, 'MEDIAN of reps', JSON.stringify(result.median));
process.exit(0);
