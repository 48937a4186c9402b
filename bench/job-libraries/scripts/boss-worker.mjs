// One pg-boss "service instance". Env:
//   DB            database name
//   PROFILE       'default' (library defaults), 'fast' (shortest supported intervals) or
//                 'balanced' (LISTEN/NOTIFY on, sweeps every 5 s, cron pass every 5 s: see BALANCED_OPTIONS)
//   ROLES         comma list of: tick, monitor, queues, lat
//   TICK_MS       how long a tick run lasts (default 20000)
//   NOTIFY        '1' to enable pg-boss LISTEN/NOTIFY (useListenNotify)
//   LAT_POLL_S    pollingIntervalSeconds of the latency worker (default: profile's)
import { PgBoss } from 'pg-boss';
import { dbUrl, emit, sleep } from './common.mjs';

const fast = process.env.PROFILE === 'fast';
const balanced = process.env.PROFILE === 'balanced';
const roles = new Set((process.env.ROLES ?? '').split(',').filter(Boolean));
const tickMs = Number(process.env.TICK_MS ?? 20000);
const poll = fast ? 0.5 : 2; // pollingIntervalSeconds: 0.5 is pg-boss' minimum, 2 its default

export const FAST_OPTIONS = {
  cronMonitorIntervalSeconds: 1, // minimum 1 (default 30): how often an instance tries to claim the cron pass
  cronWorkerIntervalSeconds: 1, // minimum 1 (default 5): poll of the internal __pgboss__send-it queue
  superviseIntervalSeconds: 1, // minimum 1 (default 60): expiry / heartbeat sweep
  monitorIntervalSeconds: 1, // minimum 1 (default 60)
};

/** A middle setting: new jobs wake workers by NOTIFY (queues created with notify: true), so polls are a 30 s backstop. */
export const BALANCED_OPTIONS = {
  cronMonitorIntervalSeconds: 5,
  cronWorkerIntervalSeconds: 2,
  superviseIntervalSeconds: 5,
  monitorIntervalSeconds: 5,
};

const boss = new PgBoss({
  connectionString: process.env.DB_URL ?? dbUrl(process.env.DB), // DB_URL: through a proxy (exp1e-partition.mjs)
  application_name: `boss-${process.env.WORKER_NAME}`,
  ...(fast ? FAST_OPTIONS : {}),
  ...(balanced ? BALANCED_OPTIONS : {}),
  ...(process.env.NOTIFY === '1' || balanced ? { useListenNotify: true } : {}),
});
boss.on('error', (e) => emit({ ev: 'error', msg: String(e?.message ?? e) }));
boss.on('warning', (w) => emit({ ev: 'warning', msg: String(w?.message ?? w) }));
await boss.start();
emit({ ev: 'ready' });

if (roles.has('tick')) {
  await boss.work('tick', { pollingIntervalSeconds: poll, includeMetadata: true }, async ([job]) => {
    emit({ ev: 'start', queue: 'tick', id: job.id, retry: job.retryCount, createdOn: +job.createdOn });
    await sleep(tickMs);
    emit({ ev: 'end', queue: 'tick', id: job.id, retry: job.retryCount });
  });
}
if (roles.has('monitor')) {
  // A loop that runs for hours: heartbeats keep it alive; it stops only when its signal aborts.
  await boss.work('monitor', { pollingIntervalSeconds: poll, includeMetadata: true }, async ([job]) => {
    emit({ ev: 'start', queue: 'monitor', id: job.id, retry: job.retryCount });
    for (let i = 1; !job.signal.aborted; i++) {
      await sleep(250);
      if (i % 4 === 0) emit({ ev: 'beat', queue: 'monitor', id: job.id }); // one "poll" a second
    }
    emit({ ev: 'end', queue: 'monitor', id: job.id, reason: String(job.signal.reason?.message ?? job.signal.reason) });
  });
}
if (roles.has('queues')) {
  // The two leased queues of the service: analyses (2 at once) and push deliveries (4 at once).
  await boss.work('analysis', { pollingIntervalSeconds: poll, localConcurrency: 2 }, async ([job]) => emit({ ev: 'start', queue: 'analysis', id: job.id }));
  await boss.work('push', { pollingIntervalSeconds: poll, localConcurrency: 4 }, async ([job]) => emit({ ev: 'start', queue: 'push', id: job.id }));
}
if (roles.has('lat')) {
  const latPoll = process.env.LAT_POLL_S ? Number(process.env.LAT_POLL_S) : poll;
  await boss.work('lat', { pollingIntervalSeconds: latPoll }, async ([job]) => emit({ ev: 'start', queue: 'lat', id: job.id, n: job.data.n }));
}
emit({ ev: 'working' });
process.on('SIGTERM', async () => {
  await boss.stop({ graceful: false, timeout: 2000 }).catch(() => undefined);
  process.exit(0);
});
