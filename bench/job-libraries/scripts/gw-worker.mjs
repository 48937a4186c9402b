// One graphile-worker "service instance". Env:
//   DB            database name
//   PROFILE       'default' (pollInterval 2000 ms, the library default) or 'fast' (pollInterval 500 ms)
//   ROLES         comma list of: tick, monitor, queues, lat
//   TICK_MS       how long a tick run lasts (default 20000)
//   GW_VARIANT    'queue' (tick jobs in the serial queue tick_q with jobKey tick: never two at once)
//                 or 'noqueue' (plain cron jobs)
//   GW_RUNNERS    'single' (one runner, all tasks, concurrency 6) or 'split' (a runner per role, own concurrency)
import { Logger, run } from 'graphile-worker';
import { dbUrl, emit, sleep } from './common.mjs';

const fast = process.env.PROFILE === 'fast';
const pollInterval = fast ? 500 : 2000;
const roles = new Set((process.env.ROLES ?? '').split(',').filter(Boolean));
const tickMs = Number(process.env.TICK_MS ?? 20000);
const variant = process.env.GW_VARIANT ?? 'queue';
const logger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`${level}: ${message}\n`);
});

const tasks = {
  tick: async (payload, helpers) => {
    const j = helpers.job;
    emit({ ev: 'start', queue: 'tick', id: String(j.id), retry: j.attempts - 1, ts: payload._cron?.ts, lockedBy: j.locked_by });
    await sleep(tickMs);
    emit({ ev: 'end', queue: 'tick', id: String(j.id) });
  },
  monitor: async (payload, helpers) => {
    const j = helpers.job;
    emit({ ev: 'start', queue: 'monitor', id: String(j.id), retry: j.attempts - 1, lockedBy: j.locked_by });
    for (let i = 1; !helpers.abortSignal.aborted; i++) {
      await sleep(250);
      if (i % 4 === 0) emit({ ev: 'beat', queue: 'monitor', id: String(j.id) }); // one "poll" a second
    }
    emit({ ev: 'end', queue: 'monitor', id: String(j.id) });
  },
  analysis: async (_p, helpers) => emit({ ev: 'start', queue: 'analysis', id: String(helpers.job.id) }),
  push: async (_p, helpers) => emit({ ev: 'start', queue: 'push', id: String(helpers.job.id) }),
  lat: async (payload, helpers) => emit({ ev: 'start', queue: 'lat', id: String(helpers.job.id), n: payload.n }),
};
// Graphile's crontab is UTC only: 'every minute' is the same in Asia/Seoul; 04:45 KST would be '45 19 * * *'.
const tickCron = variant === 'queue' ? '* * * * * tick ?queue=tick_q&jobKey=tick&max=2' : '* * * * * tick ?max=2';

const common = { connectionString: dbUrl(process.env.DB), pollInterval, noHandleSignals: true, logger };
const runners = [];
const pick = (names) => Object.fromEntries(names.map((n) => [n, tasks[n]]));
if (process.env.GW_RUNNERS === 'single') {
  const names = [...roles].flatMap((r) => (r === 'queues' ? ['analysis', 'push'] : [r]));
  runners.push(await run({ ...common, concurrency: 6, taskList: pick(names), crontab: roles.has('tick') ? tickCron : '' }));
} else {
  if (roles.has('tick')) runners.push(await run({ ...common, concurrency: 1, taskList: pick(['tick']), crontab: tickCron }));
  if (roles.has('monitor')) runners.push(await run({ ...common, concurrency: 1, taskList: pick(['monitor']) }));
  if (roles.has('queues')) {
    runners.push(await run({ ...common, concurrency: 2, taskList: pick(['analysis']) }));
    runners.push(await run({ ...common, concurrency: 4, taskList: pick(['push']) }));
  }
  if (roles.has('lat')) runners.push(await run({ ...common, concurrency: 1, taskList: pick(['lat']) }));
}
emit({ ev: 'working' });
process.on('SIGTERM', async () => {
  await Promise.all(runners.map((r) => r.stop().catch(() => undefined)));
  process.exit(0);
});
