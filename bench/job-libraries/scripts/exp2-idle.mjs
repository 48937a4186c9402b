// Experiment 2: idle cost. 3 processes, each with the every-minute cron job and the two
// queues (analysis x2, push x4) with workers, no work at all. Three windows of 60 s after
// a 15 s warm-up; per window: transactions committed in the database (pg_stat_database.xact_commit)
// and top-level statements the server received (counted in the server log, with
// log_statement = 'all' set on this database only).
//   LIB=boss|gw PROFILE=default|fast [NOTIFY=1 (boss)] [GW_RUNNERS=single|split (gw)]
import { openSync, readSync, statSync, closeSync, writeFileSync } from 'node:fs';
import { bossSetup } from './boss-setup.mjs';
import { gwSetup } from './gw-setup.mjs';
import { sleep, spawnWorker, waitFor, median, sql } from './common.mjs';

const LIB = process.env.LIB;
const PROFILE = process.env.PROFILE ?? 'default';
const NOTIFY = process.env.NOTIFY === '1';
const RUNNERS = process.env.GW_RUNNERS ?? 'split';
const WINDOWS = Number(process.env.WINDOWS ?? 3);
const WINDOW_MS = 60000;
const db = `joblibs_idle_${LIB}`;
const LOG = '/var/log/postgresql/postgresql-15-main.log';
const tag = `exp2-${LIB}-${PROFILE}${LIB === 'boss' && NOTIFY ? '-notify' : ''}${LIB === 'gw' ? '-' + RUNNERS : ''}`;
const log = (...a) => console.log(new Date().toISOString().slice(11, 23), ...a);

await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
await sql(`CREATE DATABASE ${db}`);
if (LIB === 'boss') await bossSetup(db, { notifyAll: NOTIFY });
else await gwSetup(db);
await sql(`ALTER DATABASE ${db} SET log_statement = 'all'`);

const script = new URL(LIB === 'boss' ? './boss-worker.mjs' : './gw-worker.mjs', import.meta.url).pathname;
const env = { DB: db, PROFILE, ROLES: 'tick,queues', TICK_MS: '100', GW_VARIANT: 'queue', GW_RUNNERS: RUNNERS, NOTIFY: NOTIFY ? '1' : '0' };
const ws = [1, 2, 3].map((i) => spawnWorker(script, `w${i}`, env));
for (const w of ws) await waitFor(() => w.events.some((e) => e.ev === 'working'), 30000);
log(tag, 'workers ready; warming up 15 s');
await sleep(15000);

const xact = async () => Number((await sql('SELECT xact_commit FROM pg_stat_database WHERE datname = $1', [db]))[0].xact_commit);
const logSize = () => statSync(LOG).size;
function statements(from, to) {
  const fd = openSync(LOG, 'r');
  const buf = Buffer.alloc(to - from);
  readSync(fd, buf, 0, to - from, from);
  closeSync(fd);
  // A log record starts with its timestamp; a statement's text may run over several lines.
  const records = buf.toString('utf8').split(/\n(?=\d{4}-\d\d-\d\d \d\d:)/);
  const lines = records.filter((l) => l.includes(`@${db} `) && /LOG:\s+(statement|execute [^:]*):/.test(l));
  const kinds = new Map();
  for (const l of lines) {
    const text = l.replace(/^[\s\S]*?LOG:\s+(statement|execute [^:]*):\s*/, '').replace(/\s+/g, ' ').trim().slice(0, 90);
    kinds.set(text, (kinds.get(text) ?? 0) + 1);
  }
  return { count: lines.length, top: [...kinds.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15) };
}

const windows = [];
for (let i = 0; i < WINDOWS; i++) {
  const x0 = await xact();
  const l0 = logSize();
  const t0 = Date.now();
  await sleep(WINDOW_MS);
  const x1 = await xact();
  const l1 = logSize();
  const secs = (Date.now() - t0) / 1000;
  const st = statements(l0, l1);
  const conns = Number((await sql("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1", [db]))[0].n);
  const w = { window: i + 1, logBytes: [l0, l1], seconds: secs, xactPerSec: (x1 - x0) / secs, statementsPerSec: st.count / secs, connections: conns, top: st.top };
  windows.push(w);
  log(tag, `window ${i + 1}: ${w.xactPerSec.toFixed(2)} xact/s, ${w.statementsPerSec.toFixed(2)} statements/s, ${conns} connections`);
}
const ticks = ws.flatMap((w) => w.events.filter((e) => e.ev === 'start' && e.queue === 'tick')).length;
for (const w of ws) w.kill('SIGTERM');
await waitFor(() => ws.every((w) => w.exitCode !== null || w.signalCode !== null), 10000);
for (const w of ws) if (w.exitCode === null) w.kill('SIGKILL');
await sleep(1000);
await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
const result = {
  tag, lib: LIB, profile: PROFILE, notify: NOTIFY, runners: LIB === 'gw' ? RUNNERS : undefined, windows, tickRuns: ticks,
  median: { xactPerSec: median(windows.map((w) => w.xactPerSec)), statementsPerSec: median(windows.map((w) => w.statementsPerSec)), connections: median(windows.map((w) => w.connections)) },
};
writeFileSync(new URL(`../results/${tag}.json`, import.meta.url).pathname, JSON.stringify(result, null, 2));
log(tag, 'MEDIAN', JSON.stringify(result.median));
process.exit(0);
