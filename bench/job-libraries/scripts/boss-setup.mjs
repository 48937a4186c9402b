// Installs pg-boss' schema in a clean state and creates the queues and the schedule the experiments use.
import { PgBoss } from 'pg-boss';
import { dbUrl, sql } from './common.mjs';

export async function bossSetup(db, { cron = '* * * * *', notify = false, notifyAll = false, withTick = true } = {}) {
  const n = notifyAll ? { notify: true } : {};
  await sql('DROP SCHEMA IF EXISTS pgboss CASCADE', [], db);
  const boss = new PgBoss({ connectionString: dbUrl(db), schedule: false, supervise: false });
  boss.on('error', (e) => console.error('setup error', e.message));
  await boss.start(); // installs the schema (migrations run on start)
  // The cron job: at most one queued or active ("exclusive": a tick that comes while the
  // previous run is still going is dropped), a crashed holder found by its missing heartbeat.
  await boss.createQueue('tick', { policy: 'exclusive', heartbeatSeconds: 10, expireInSeconds: 60, retryLimit: 1, retryDelay: 0, ...n });
  // The long-running loop (disclosure monitor): one active at a time, heartbeat 10 s (the minimum),
  // expiry 24 h (the maximum pg-boss allows).
  await boss.createQueue('monitor', { policy: 'singleton', heartbeatSeconds: 10, expireInSeconds: 86400, retryLimit: 1000, retryDelay: 0, ...n });
  await boss.createQueue('analysis', { retryLimit: 5, retryDelay: 30, retryBackoff: true, ...n });
  await boss.createQueue('push', { retryLimit: 5, retryDelay: 30, retryBackoff: true, ...n });
  await boss.createQueue('lat', { notify: notify || notifyAll });
  if (withTick) await boss.schedule('tick', cron, null, { tz: 'Asia/Seoul' });
  await boss.stop({ graceful: false });
}
