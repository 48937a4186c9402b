// Experiment 1: singleton cron failover and long-running singleton failover.
//   LIB=boss|gw  [GW_VARIANT=queue|noqueue]  [PHASES=A,B,C]  [TRIALS=3]
// Phase A: 3 processes, one cron job every minute (runs 20 s); kill -9 the process running
//          a tick 3 s into it; time until the next tick run starts on another process.
// Phase B: kill -9, 1 s before a tick, the process that ran the previous tick; lateness of that tick.
// Phase C: a long-running singleton job (the monitor loop); kill -9 its holder 2 s after it
//          starts; time until it runs again on another process.
// Phase D: the same job; the holder freezes (SIGSTOP) for 25 s, then goes on (SIGCONT): time until
//          another process takes over, and how long the old holder keeps running after it wakes.
// Every event goes to results/exp1-<lib>[-variant]-events.jsonl; the summary to results/exp1-<lib>[-variant].json.
import { writeFileSync } from 'node:fs';
import { PgBoss } from 'pg-boss';
import { makeWorkerUtils, Logger } from 'graphile-worker';
import { bossSetup } from './boss-setup.mjs';
import { gwSetup } from './gw-setup.mjs';
import { dbUrl, sleep, spawnWorker, waitFor, median, sql } from './common.mjs';

const LIB = process.env.LIB;
const variant = LIB === 'gw' ? (process.env.GW_VARIANT ?? 'queue') : 'exclusive';
const phases = new Set((process.env.PHASES ?? 'A,B,C').split(','));
const TRIALS = Number(process.env.TRIALS ?? 3);
const PROFILE = process.env.PROFILE ?? 'fast'; // pg-boss only: 'fast' or 'balanced' (see boss-worker.mjs)
const db = LIB === 'boss' ? 'joblibs_boss' : 'joblibs_gw';
const script = new URL(LIB === 'boss' ? './boss-worker.mjs' : './gw-worker.mjs', import.meta.url).pathname;
const tag = `exp1-${LIB}${LIB === 'gw' ? '-' + variant : ''}${PROFILE !== 'fast' ? '-' + PROFILE : ''}${process.env.TAG_SUFFIX ?? ''}`;
const resultsDir = new URL('../results/', import.meta.url).pathname;

const events = [];
const log = (...a) => console.log(new Date().toISOString().slice(11, 23), ...a);
let workers = [];
let seq = 0;
const alive = () => workers.filter((w) => w.alive && !w.killedAt);

function spawnOne(roles) {
  const name = `w${++seq}`;
  const c = spawnWorker(script, name, { DB: db, PROFILE, ROLES: roles, GW_VARIANT: variant, TICK_MS: '20000' }, (ev) => {
    events.push(ev);
    if (ev.ev === 'start') log(`${ev.worker} start ${ev.queue} id=${ev.id} retry=${ev.retry}${ev.ts ? ' ts=' + ev.ts : ''}`);
    if (ev.ev === 'error') log(`${ev.worker} error ${ev.msg}`);
  });
  workers.push(c);
  return c;
}
async function ready(c) {
  await waitFor(() => c.events.some((e) => e.ev === 'working'), 30000);
}
async function startFleet(roles) {
  const cs = [spawnOne(roles), spawnOne(roles), spawnOne(roles)];
  for (const c of cs) await ready(c);
  return Date.now();
}
function kill(c) {
  c.killedAt = Date.now();
  c.kill('SIGKILL');
  events.push({ t: c.killedAt, ev: 'killed', worker: c.workerName });
  log(`KILL -9 ${c.workerName}`);
  return c.killedAt;
}
async function stopAll() {
  for (const c of workers) if (c.alive) c.kill('SIGTERM');
  await waitFor(() => workers.every((c) => !c.alive), 8000);
  for (const c of workers) if (c.alive) c.kill('SIGKILL');
  await sleep(500);
  workers = [];
}
const starts = (queue, after = 0) => events.filter((e) => e.ev === 'start' && e.queue === queue && e.t > after);
const byName = (name) => workers.find((w) => w.workerName === name);
/** The instant a tick was due: pg-boss jobs carry createdOn (sent just after the minute), graphile's payload the cron ts. */
const tickDue = (e) => (e.ts ? Date.parse(e.ts) : Math.floor(e.createdOn / 60000) * 60000);

async function forceUnlock(workerId) {
  const utils = await makeWorkerUtils({ connectionString: dbUrl(db), logger: new Logger(() => () => {}) });
  await utils.forceUnlockWorkers([workerId]);
  await utils.release();
}

const result = { lib: LIB, variant, settings: {}, A: [], B: [], C: [], D: [] };
result.settings =
  LIB === 'boss' && PROFILE === 'balanced'
    ? { profile: 'balanced', cronMonitorIntervalSeconds: 5, cronWorkerIntervalSeconds: 2, superviseIntervalSeconds: 5, monitorIntervalSeconds: 5, useListenNotify: true, queuesNotify: true, pollingIntervalSeconds: 2 }
    : LIB === 'boss'
    ? {
        cronMonitorIntervalSeconds: 1,
        cronWorkerIntervalSeconds: 1,
        superviseIntervalSeconds: 1,
        monitorIntervalSeconds: 1,
        pollingIntervalSeconds: 0.5,
        tickQueue: { policy: 'exclusive', heartbeatSeconds: 10, expireInSeconds: 60, retryLimit: 1, retryDelay: 0 },
        monitorQueue: { policy: 'singleton', heartbeatSeconds: 10, expireInSeconds: 86400, retryLimit: 1000 },
        cron: "'* * * * *' tz Asia/Seoul",
      }
    : {
        pollInterval: 500,
        crontab: variant === 'queue' ? '* * * * * tick ?queue=tick_q&jobKey=tick&max=2' : '* * * * * tick ?max=2',
        monitorJob: { queueName: 'monitor_q', jobKey: 'monitor' },
        lockTimeout: '4 hours (hard-coded in resetLockedAt)',
      };

if (phases.has('A') || phases.has('B')) {
  if (LIB === 'boss') await bossSetup(db, { notifyAll: PROFILE === 'balanced' });
  else await gwSetup(db);
  let fleetAt = await startFleet('tick');
  log('fleet of 3 ready (tick)');

  if (phases.has('A')) {
    for (let trial = 1; trial <= TRIALS; trial++) {
      const ev0 = await waitFor(() => starts('tick', fleetAt).find((e) => e.retry === 0 && byName(e.worker)?.alive), 150000, 10);
      if (!ev0) throw new Error('no tick started');
      await sleep(Math.max(0, ev0.t + 3000 - Date.now()));
      const tKill = kill(byName(ev0.worker));
      const obsEnd = tKill + (LIB === 'gw' && variant === 'queue' ? 100000 : 90000);
      // The first run after the kill on another process, and (separately) the next fresh tick.
      const next = await waitFor(() => starts('tick', tKill).find((e) => e.retry === 0 && e.id !== ev0.id), obsEnd - Date.now(), 20);
      const after = starts('tick', tKill);
      const retryEv = after.find((e) => e.id === ev0.id);
      const first = after[0];
      const rec = {
        trial,
        holder: ev0.worker,
        tickDue: new Date(tickDue(ev0)).toISOString(),
        killedRunStartedMsAfterDue: ev0.t - tickDue(ev0),
        retryOfKilledTickMsAfterKill: retryEv ? retryEv.t - tKill : null,
        nextTickMsAfterKill: next ? next.t - tKill : null,
        nextTickLatenessMs: next ? next.t - tickDue(next) : null,
        firstRunAfterKillMs: first ? first.t - tKill : null,
        firstRunWorker: first?.worker ?? null,
        firstRunWasRetryOfKilledTick: first ? first.id === ev0.id : null,
      };
      if (!first && LIB === 'gw') {
        // Nothing ran: the dead worker still holds the job (and its queue). Unlock by hand, as our own
        // liveness detection would have to, and time the restart.
        const state = await sql("SELECT id, queue_name, locked_by, locked_at, attempts FROM graphile_worker.jobs WHERE task_identifier = 'tick' ORDER BY id", [], db);
        rec.jobsWhileStuck = state;
        const tUnlock = Date.now();
        await forceUnlock(ev0.lockedBy);
        const ev = await waitFor(() => starts('tick', tUnlock)[0], 30000, 10);
        rec.runAfterForceUnlockMs = ev ? ev.t - tUnlock : null;
        rec.runAfterForceUnlockWasKilledTick = ev ? ev.id === ev0.id : null;
      }
      result.A.push(rec);
      log('A', JSON.stringify(rec));
      spawnOne('tick');
      await ready(workers.at(-1));
      fleetAt = Date.now();
      if (!next) await sleep(1000);
    }
  }

  if (phases.has('B')) {
    for (let trial = 1; trial <= TRIALS; trial++) {
      let due = Math.ceil(Date.now() / 60000) * 60000;
      if (due - Date.now() < 5000) due += 60000;
      await sleep(due - 1000 - Date.now());
      // The process that ran the previous tick, unless it is still running one (then an idle one):
      // this phase is about a process that would run the next tick, not one holding a run.
      const busy = (w) => {
        const s = w.events.filter((e) => e.ev === 'start' && e.queue === 'tick').at(-1);
        return s && !w.events.some((e) => e.ev === 'end' && e.id === s.id && e.t >= s.t);
      };
      const last = starts('tick').filter((e) => byName(e.worker)?.alive && !byName(e.worker)?.killedAt).at(-1);
      const victim = last && !busy(byName(last.worker)) ? byName(last.worker) : alive().find((w) => !busy(w)) ?? alive()[0];
      const tKill = kill(victim);
      const ev = await waitFor(() => starts('tick', tKill).find((e) => e.retry === 0 && tickDue(e) === due), 90000, 10);
      const rec = { trial, victim: victim.workerName, tickDue: new Date(due).toISOString(), startLatenessMs: ev ? ev.t - due : null, ranOn: ev?.worker ?? null };
      result.B.push(rec);
      log('B', JSON.stringify(rec));
      spawnOne('tick');
      await ready(workers.at(-1));
    }
  }
  // Every tick seen: how many runs each had, and whether a run of it overlapped another on a live process.
  const ticks = new Map();
  for (const e of starts('tick')) {
    const k = tickDue(e) + ':' + e.id;
    if (!ticks.has(k)) ticks.set(k, []);
    ticks.get(k).push(e);
  }
  const dues = [...new Set(starts('tick').map(tickDue))].sort();
  result.ticks = dues.map((d) => {
    const runs = starts('tick').filter((e) => tickDue(e) === d);
    return { due: new Date(d).toISOString(), runs: runs.map((e) => ({ worker: e.worker, id: e.id, retry: e.retry, startMsAfterDue: e.t - d, killed: !!events.find((k) => k.ev === 'killed' && k.worker === e.worker && k.t > e.t && k.t < e.t + 20000) })) };
  });
  const first = dues[0];
  const lastDue = dues.at(-1);
  result.minutesWithoutTick = [];
  for (let d = first; d <= lastDue; d += 60000) if (!dues.includes(d)) result.minutesWithoutTick.push(new Date(d).toISOString());
  result.ticksRunTwiceWithoutKill = result.ticks.filter((t) => t.runs.filter((r) => !r.killed).length > 1).map((t) => t.due);
  result.ticksWithDifferentJobIds = result.ticks.filter((t) => new Set(t.runs.map((r) => r.id)).size > 1).map((t) => t.due);
  await stopAll();
}

if (phases.has('C') || phases.has('D')) {
  if (LIB === 'boss') await bossSetup(db, { withTick: false, notifyAll: PROFILE === 'balanced' });
  else await gwSetup(db);
  let fleetAt = await startFleet('monitor');
  log('fleet of 3 ready (monitor)');
  if (LIB === 'boss') {
    const boss = new PgBoss({ connectionString: dbUrl(db), schedule: false, supervise: false });
    await boss.start();
    await boss.send('monitor', {});
    await boss.stop({ graceful: false });
  } else {
    const utils = await makeWorkerUtils({ connectionString: dbUrl(db), logger: new Logger(() => () => {}) });
    await utils.addJob('monitor', {}, { queueName: 'monitor_q', jobKey: 'monitor', maxAttempts: 1000 });
    await utils.release();
  }
  for (let trial = 1; phases.has('C') && trial <= TRIALS; trial++) {
    const ev0 = await waitFor(() => starts('monitor').filter((e) => byName(e.worker)?.alive && !byName(e.worker)?.killedAt).at(-1), 120000, 10);
    if (!ev0) throw new Error('monitor never started');
    await sleep(Math.max(0, 2000 - (Date.now() - Math.max(ev0.t, fleetAt))));
    const tKill = kill(byName(ev0.worker));
    const limit = LIB === 'gw' ? 60000 : 90000;
    const ev = await waitFor(() => starts('monitor', tKill)[0], limit, 10);
    const rec = { trial, holder: ev0.worker, restartMsAfterKill: ev ? ev.t - tKill : null, restartedOn: ev?.worker ?? null, observedMs: limit };
    if (!ev && LIB === 'gw') {
      rec.jobWhileStuck = await sql("SELECT id, queue_name, locked_by, locked_at, attempts FROM graphile_worker.jobs WHERE task_identifier = 'monitor'", [], db);
      const tUnlock = Date.now();
      await forceUnlock(ev0.lockedBy);
      const ev2 = await waitFor(() => starts('monitor', tUnlock)[0], 30000, 10);
      rec.restartMsAfterForceUnlock = ev2 ? ev2.t - tUnlock : null;
    }
    // Two holders at once would show as a start while an earlier holder was neither killed nor ended.
    result.C.push(rec);
    log('C', JSON.stringify(rec));
    spawnOne('monitor');
    await ready(workers.at(-1));
    fleetAt = Date.now();
  }
  for (let trial = 1; phases.has('D') && trial <= TRIALS; trial++) {
    const holderEv = await waitFor(() => starts('monitor').filter((e) => byName(e.worker)?.alive && !byName(e.worker)?.killedAt && !byName(e.worker)?.stoppedAt).at(-1), 120000, 10);
    if (!holderEv) throw new Error('monitor not running');
    await sleep(2000);
    const holder = byName(holderEv.worker);
    const tStop = Date.now();
    holder.stoppedAt = tStop;
    holder.kill('SIGSTOP');
    events.push({ t: tStop, ev: 'stopped', worker: holder.workerName });
    log(`SIGSTOP ${holder.workerName}`);
    const taken = await waitFor(() => starts('monitor', tStop).find((e) => e.worker !== holder.workerName), 25000, 10);
    await sleep(Math.max(0, tStop + 25000 - Date.now()));
    const tCont = Date.now();
    holder.kill('SIGCONT');
    events.push({ t: tCont, ev: 'continued', worker: holder.workerName });
    log(`SIGCONT ${holder.workerName}`);
    const ended = await waitFor(() => holder.events.find((e) => e.ev === 'end' && e.queue === 'monitor' && e.t > tCont), 20000, 10);
    const beatsAfterWake = holder.events.filter((e) => e.ev === 'beat' && e.t > tCont && (!ended || e.t <= ended.t)).length;
    const rec = {
      trial,
      holder: holder.workerName,
      takeoverMsAfterFreeze: taken ? taken.t - tStop : null,
      takenOverBy: taken?.worker ?? null,
      oldHolderRanMsAfterWake: ended ? ended.t - tCont : null,
      oldHolderBeatsAfterWake: beatsAfterWake,
      oldHolderStillRunningAfter20s: !ended,
      endReason: ended?.reason ?? null,
    };
    result.D.push(rec);
    log('D', JSON.stringify(rec));
    // Back to three healthy processes: the frozen one is replaced.
    holder.kill('SIGKILL');
    holder.killedAt = Date.now();
    if (LIB === 'gw' && !taken) await forceUnlock(holderEv.lockedBy);
    spawnOne('monitor');
    await ready(workers.at(-1));
  }
  const ms = starts('monitor');
  result.monitorOverlaps = ms.filter((e, i) => i > 0 && !events.some((k) => k.ev === 'killed' && k.worker === ms[i - 1].worker && k.t <= e.t)).length;
  await stopAll();
}

const sum = (arr, key) => median(arr.map((r) => r[key]).filter((v) => v !== null && v !== undefined));
result.summary = {
  A_median_firstRunAfterKillMs: sum(result.A, 'firstRunAfterKillMs'),
  A_median_retryOfKilledTickMsAfterKill: sum(result.A, 'retryOfKilledTickMsAfterKill'),
  A_median_nextTickMsAfterKill: sum(result.A, 'nextTickMsAfterKill'),
  A_median_nextTickLatenessMs: sum(result.A, 'nextTickLatenessMs'),
  B_median_startLatenessMs: sum(result.B, 'startLatenessMs'),
  C_median_restartMsAfterKill: sum(result.C, 'restartMsAfterKill'),
  C_median_restartMsAfterForceUnlock: sum(result.C, 'restartMsAfterForceUnlock'),
  D_median_takeoverMsAfterFreeze: sum(result.D, 'takeoverMsAfterFreeze'),
  D_median_oldHolderRanMsAfterWake: sum(result.D, 'oldHolderRanMsAfterWake'),
  normalTickLatenessMs: result.ticks ? median(result.ticks.map((t) => t.runs[0]?.startMsAfterDue).filter((v) => v !== undefined)) : null,
};
writeFileSync(`${resultsDir}${tag}.json`, JSON.stringify(result, null, 2));
writeFileSync(`${resultsDir}${tag}-events.jsonl`, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
log('SUMMARY', JSON.stringify(result.summary));
process.exit(0);
