// Experiment 1, phase E (pg-boss only): the holder of the long-running singleton job is cut off
// from PostgreSQL (its TCP proxy stops forwarding, nothing is closed) for 40 s, then reconnected.
// Measures: time until another process takes the job over, and how long the cut-off holder keeps
// running its loop while the new holder runs (its heartbeats cannot reach the database).
//   [PROFILE=fast|balanced] [TRIALS=3]
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import { PgBoss } from 'pg-boss';
import { bossSetup } from './boss-setup.mjs';
import { dbUrl, sleep, spawnWorker, waitFor, median } from './common.mjs';

const PROFILE = process.env.PROFILE ?? 'fast';
const TRIALS = Number(process.env.TRIALS ?? 3);
const CUT_MS = 40000;
const db = 'joblibs_boss_e';
const log = (...a) => console.log(new Date().toISOString().slice(11, 23), ...a);
const script = new URL('./boss-worker.mjs', import.meta.url).pathname;

/** A TCP proxy to PostgreSQL whose forwarding can be stopped (packets are held, nothing is closed). */
function proxy() {
  const pairs = new Set();
  let cut = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(5432, '127.0.0.1');
    const pair = { client, upstream };
    pairs.add(pair);
    const forward = (from, to) =>
      from.on('data', (chunk) => {
        if (cut) (pair.held ??= []).push([to, chunk]);
        else to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        cut: () => (cut = true),
        heal: () => {
          cut = false;
          for (const p of pairs) for (const [to, chunk] of p.held?.splice(0) ?? []) to.write(chunk);
        },
        close: () => server.close(),
      }),
    ),
  );
}

await bossSetup(db, { withTick: false, notifyAll: PROFILE === 'balanced' });
const events = [];
let seq = 0;
const workers = [];
async function spawnOne() {
  const p = await proxy();
  const name = `w${++seq}`;
  const w = spawnWorker(script, name, { DB: db, DB_URL: `postgres://postgres@127.0.0.1:${p.port}/${db}`, PROFILE, ROLES: 'monitor' }, (ev) => {
    events.push(ev);
    if (ev.ev === 'start' || ev.ev === 'end') log(`${ev.worker} ${ev.ev} monitor retry=${ev.retry ?? ''} ${ev.reason ?? ''}`);
  });
  w.proxy = p;
  workers.push(w);
  await waitFor(() => w.events.some((e) => e.ev === 'working'), 30000);
  return w;
}
for (let i = 0; i < 3; i++) await spawnOne();
const boss = new PgBoss({ connectionString: dbUrl(db), schedule: false, supervise: false });
await boss.start();
await boss.send('monitor', {});
await boss.stop({ graceful: false });

const rows = [];
for (let trial = 1; trial <= TRIALS; trial++) {
  const holderEv = await waitFor(() => events.filter((e) => e.ev === 'start' && !workers.find((w) => w.workerName === e.worker).retired).at(-1), 120000, 10);
  await sleep(2000);
  const holder = workers.find((w) => w.workerName === holderEv.worker);
  const tCut = Date.now();
  holder.proxy.cut();
  log(`CUT ${holder.workerName} off the database`);
  const taken = await waitFor(() => events.find((e) => e.ev === 'start' && e.t > tCut && e.worker !== holder.workerName), CUT_MS - 1000, 10);
  await sleep(Math.max(0, tCut + CUT_MS - Date.now()));
  const beatsWhileCut = holder.events.filter((e) => e.ev === 'beat' && e.t > (taken?.t ?? Infinity) && e.t <= Date.now()).length;
  const tHeal = Date.now();
  holder.proxy.heal();
  log(`HEAL ${holder.workerName}`);
  const ended = await waitFor(() => holder.events.find((e) => e.ev === 'end' && e.t > tHeal), 30000, 10);
  const rec = {
    trial,
    holder: holder.workerName,
    takeoverMsAfterCut: taken ? taken.t - tCut : null,
    oldHolderBeatsWhileNewHolderRan: beatsWhileCut,
    overlapMs: taken ? (ended ? ended.t : Date.now()) - taken.t : 0,
    oldHolderStoppedMsAfterHeal: ended ? ended.t - tHeal : null,
    endReason: ended?.reason ?? null,
  };
  rows.push(rec);
  log('E', JSON.stringify(rec));
  holder.retired = true;
  holder.kill('SIGKILL');
  holder.proxy.close();
  await spawnOne();
}
for (const w of workers) w.kill('SIGKILL');
const result = {
  profile: PROFILE,
  cutMs: CUT_MS,
  E: rows,
  median: {
    takeoverMsAfterCut: median(rows.map((r) => r.takeoverMsAfterCut).filter((v) => v !== null)),
    overlapMs: median(rows.map((r) => r.overlapMs)),
    oldHolderStoppedMsAfterHeal: median(rows.map((r) => r.oldHolderStoppedMsAfterHeal).filter((v) => v !== null)),
  },
};
writeFileSync(new URL(`../results/exp1e-boss-partition${PROFILE !== 'fast' ? '-' + PROFILE : ''}.json`, import.meta.url).pathname, JSON.stringify(result, null, 2));
log('MEDIAN', JSON.stringify(result.median));
process.exit(0);
