// Prints the key numbers of every result file in ../results (used to write RESULTS.md).
import { readdirSync, readFileSync } from 'node:fs';
const dir = new URL('../results/', import.meta.url).pathname;
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
for (const f of files) {
  const r = JSON.parse(readFileSync(dir + f, 'utf8'));
  console.log(`\n### ${f}`);
  if (f.startsWith('exp1e')) {
    for (const e of r.E) console.log('E', e.trial, `takeoverAfterCut=${e.takeoverMsAfterCut} overlap=${e.overlapMs} beatsWhileNewHolderRan=${e.oldHolderBeatsWhileNewHolderRan} stoppedAfterHeal=${e.oldHolderStoppedMsAfterHeal}`);
    console.log('median', JSON.stringify(r.median));
  } else if (f.startsWith('exp1')) {
    for (const a of r.A) console.log('A', a.trial, `holder=${a.holder} killedRunStartedMsAfterDue=${a.killedRunStartedMsAfterDue} firstRunAfterKill=${a.firstRunAfterKillMs} retryOfKilled=${a.retryOfKilledTickMsAfterKill} nextTickAfterKill=${a.nextTickMsAfterKill} nextTickLateness=${a.nextTickLatenessMs} forceUnlock->run=${a.runAfterForceUnlockMs ?? '-'} runAfterUnlockWasKilledTick=${a.runAfterForceUnlockWasKilledTick ?? '-'}`);
    for (const b of r.B) console.log('B', b.trial, `victim=${b.victim} lateness=${b.startLatenessMs} ranOn=${b.ranOn}`);
    for (const c of r.C) console.log('C', c.trial, `restartAfterKill=${c.restartMsAfterKill} forceUnlock->restart=${c.restartMsAfterForceUnlock ?? '-'}`);
    for (const d of r.D ?? []) console.log('D', d.trial, `takeoverAfterFreeze=${d.takeoverMsAfterFreeze} oldHolderRanAfterWake=${d.oldHolderRanMsAfterWake} beatsAfterWake=${d.oldHolderBeatsAfterWake} stillRunningAfter20s=${d.oldHolderStillRunningAfter20s}`);
    if (r.ticks) for (const t of r.ticks) console.log('  tick', t.due.slice(11, 16), t.runs.map((x) => `${x.worker}${x.retry ? '(retry ' + x.retry + ')' : ''}@+${x.startMsAfterDue}${x.killed ? ' KILLED' : ''}`).join(', '));
    console.log('lost minutes', JSON.stringify(r.minutesWithoutTick), 'runTwiceWithoutKill', JSON.stringify(r.ticksRunTwiceWithoutKill), 'monitorOverlaps', r.monitorOverlaps);
    console.log('summary', JSON.stringify(r.summary));
  } else if (f.startsWith('exp2')) {
    console.log(r.windows.map((w) => `${w.statementsPerSec.toFixed(2)} st/s ${w.xactPerSec.toFixed(2)} xact/s ${w.connections} conns`).join(' | '), '| tick runs', r.tickRuns);
    console.log('median', JSON.stringify(r.median));
    console.log((r.windows[1].top || []).slice(0, 8).map(([k, v]) => `   ${v}  ${k}`).join('\n'));
  } else if (f.startsWith('exp3')) {
    console.log(r.reps.map((x) => `p50 ${x.p50} p95 ${x.p95} mean ${x.mean.toFixed(1)} max ${x.max} min ${x.min} enqueue ${x.enqueueCallP50}`).join(' | '));
    console.log('median', JSON.stringify(r.median));
  }
}
