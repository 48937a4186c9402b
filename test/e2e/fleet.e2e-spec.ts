import { Client } from 'pg';
import request from 'supertest';
import { type DartSandbox, startDartSandbox } from '../../local/dart-sandbox/dart-sandbox';
import { FleetConnection, LEADERSHIP_APPLICATION_NAME } from '../../src/fleet/fleet-connection';
import { FleetSignals } from '../../src/fleet/fleet-signals';
import { InstanceIdentity } from '../../src/fleet/instance-identity';
import { Metrics } from '../../src/metrics/metrics';
import { ADVISORY_LOCKS } from '../../src/database/advisory-locks';
import { SingletonJobs } from '../../src/fleet/singleton-jobs';
import { ADMIN_KEY, eventually, sandboxEnv } from '../support/sandboxed-app';
import { FakeClock } from '../support/fake-clock';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const TAKEOVER_MS = 2_000;
/** Every singleton job an instance registers with the monitor switched on. */
const ALL_JOBS = ['backfill', 'disclosure-monitor', 'downgrade-cleanup', 'rate-limit-sweep', 'retention', 'stock-sync'];

interface Fleet {
  sandbox: DartSandbox;
  database: TestDatabase;
  clock: FakeClock;
  all: TestApp[];
  start(env?: Record<string, string>): Promise<TestApp>;
}

/** Instances of one service on one database and one disclosure-system sandbox; none owns them, so any may stop. */
async function startFleet(size: number, env: Record<string, string>): Promise<Fleet> {
  const clock = new FakeClock();
  const sandbox = await startDartSandbox({ companyCount: 400, seed: 7, now: () => clock.now() });
  const database = await createTestDatabase();
  const fleet: Fleet = {
    sandbox,
    database,
    clock,
    all: [],
    start: async (extra = {}) => {
      const app = await startTestApp({
        database,
        clock,
        rateLimits: RELAXED_RATE_LIMITS,
        env: {
          ...sandboxEnv(sandbox),
          LEADER_TAKEOVER_MS: String(TAKEOVER_MS),
          ...env,
          ...extra,
        },
      });
      fleet.all.push(app);
      return app;
    },
  };
  for (let i = 0; i < size; i++) await fleet.start();
  return fleet;
}

async function closeFleet(fleet: Fleet | undefined, closed: Set<TestApp>): Promise<void> {
  if (!fleet) return;
  for (const app of fleet.all) if (!closed.has(app)) await app.close();
  await fleet.sandbox.close();
  await fleet.database.drop();
}

/** One statement on the fleet's database, outside every instance. */
async function query<Row>(fleet: Fleet, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new Client({ connectionString: fleet.database.url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

const held = (app: TestApp) => app.app.get(SingletonJobs).held();

describe('three instances on one database', () => {
  let fleet: Fleet;
  const closed = new Set<TestApp>();

  beforeAll(async () => {
    fleet = await startFleet(3, {
      DISCLOSURE_MONITOR_AUTO_START: 'true',
      DISCLOSURE_MONITOR_INTERVAL_MS: '1000',
      DISCLOSURE_MONITOR_IDLE_INTERVAL_MS: '1000',
    });
  });
  afterAll(() => closeFleet(fleet, closed));

  const live = () => fleet.all.filter((app) => !closed.has(app));
  /** Which live instance holds each job. */
  const holders = () => {
    const byJob = new Map<string, TestApp[]>();
    for (const app of live()) for (const job of held(app)) byJob.set(job, [...(byJob.get(job) ?? []), app]);
    return byJob;
  };
  const leaderOf = (job: string) => live().find((app) => held(app).includes(job as never));

  it('runs each singleton job on exactly one instance', () => {
    const byJob = holders();
    expect([...byJob.keys()].sort()).toEqual(ALL_JOBS);
    for (const apps of byJob.values()) expect(apps).toHaveLength(1);
  });

  /** Every job's holder, or the instances working it, as `app` lists them (GET /api/v1/admin/jobs). */
  const listedBy = async (app: TestApp) => {
    const response = await request(app.http).get('/api/v1/admin/jobs').set('X-Admin-Key', ADMIN_KEY).expect(200);
    const jobs = response.body.jobs as { name: string; holder: string | null; instances: string[]; state: string }[];
    return new Map(jobs.map((job) => [job.name, job]));
  };
  const idOf = (app: TestApp) => app.app.get(InstanceIdentity).id;
  /** Every instance lists each job's leader as its holder, and every instance as a worker of the push queue. */
  const everyListingAgrees = async () => {
    for (const app of live()) {
      const listed = await listedBy(app);
      for (const job of ALL_JOBS) if (listed.get(job)?.holder !== idOf(leaderOf(job)!)) return false;
      if ([...listed.get('push')!.instances].sort().join() !== live().map(idOf).sort().join()) return false;
    }
    return true;
  };

  it('lists each job with its holder, the same from every instance', async () => {
    // Other instances' holdings come from their heartbeats (every T/4).
    await eventually(everyListingAgrees, TAKEOVER_MS * 2);
    const listed = await listedBy(live()[0]);
    for (const job of ALL_JOBS) expect(listed.get(job)!.state).not.toMatch(/disabled|no-holder/);
  });

  it('polls the disclosure system from one monitor for the whole fleet', async () => {
    /** The list.json calls an instance made, by its own metrics. */
    const listCallsOf = async (app: TestApp) =>
      (await app.app.get(Metrics).upstreamRequests.get()).values
        .filter((value) => value.labels.upstream === 'dart' && value.labels.endpoint === 'list.json')
        .reduce((sum, value) => sum + value.value, 0);
    const monitor = leaderOf('disclosure-monitor')!;
    const before = new Map<TestApp, number>();
    for (const app of live()) before.set(app, await listCallsOf(app));
    // The monitor polls every second: wait for four of its polls.
    await eventually(async () => (await listCallsOf(monitor)) - before.get(monitor)! >= 4, 15_000);
    // Meanwhile no other instance polled.
    for (const app of live().filter((app) => app !== monitor)) expect(await listCallsOf(app)).toBe(before.get(app));
  });

  it('stores a new filing once and serves it from every instance', async () => {
    const filing = fleet.sandbox.control.publishFiling();
    for (const app of live()) {
      await eventually(async () => (await request(app.http).get(`/api/v1/disclosures/${filing.rcept_no}`)).status === 200);
    }
    const [{ filings, analyses }] = await query<{ filings: number; analyses: number }>(
      fleet,
      `SELECT (SELECT count(*)::int FROM disclosures WHERE rcept_no = $1) AS filings,
              (SELECT count(*)::int FROM analyses WHERE rcept_no = $1) AS analyses`,
      [filing.rcept_no],
    );
    expect({ filings, analyses }).toEqual({ filings: 1, analyses: 1 });
  });

  it('delivers a signal published on one instance to the others (NOTIFY, not a heartbeat re-read)', async () => {
    // 'stock-master' is not followed, so no heartbeat delivers it: only the notification can.
    const heard = live().map(() => 0);
    live().forEach((app, i) => app.app.get(FleetSignals).on('stock-master', () => (heard[i] += 1)));
    await live()[0].app.get(FleetSignals).publish('stock-master');
    await eventually(async () => heard.every((count) => count >= 1), 3_000);
  });

  it('gives up every job at once when its leadership session is terminated, and another instance takes them over', async () => {
    const leader = leaderOf('disclosure-monitor')!;
    const id = leader.app.get(InstanceIdentity).id;
    const [{ terminated }] = await query<{ terminated: number }>(
      fleet,
      `SELECT count(pg_terminate_backend(pid))::int AS terminated FROM pg_stat_activity WHERE application_name = $1`,
      [`${LEADERSHIP_APPLICATION_NAME} ${id}`.slice(0, 63)],
    );
    expect(terminated).toBe(1);
    await eventually(async () => held(leader).length === 0, 1_000);
    const takenAt = Date.now();
    await eventually(async () => {
      const byJob = holders();
      return byJob.size === ALL_JOBS.length && [...byJob.values()].every((apps) => apps.length === 1);
    }, TAKEOVER_MS * 2);
    expect(Date.now() - takenAt).toBeLessThan(TAKEOVER_MS);
  });

  it('moves the jobs to another instance within LEADER_TAKEOVER_MS when the leader stops', async () => {
    const leader = leaderOf('backfill')!;
    const jobs = held(leader);
    expect(jobs.length).toBeGreaterThan(0);
    await leader.close();
    closed.add(leader);
    const stoppedAt = Date.now();
    await eventually(async () => jobs.every((job) => leaderOf(job) !== undefined), TAKEOVER_MS * 2);
    expect(Date.now() - stoppedAt).toBeLessThan(TAKEOVER_MS);
    for (const apps of holders().values()) expect(apps).toHaveLength(1); // The listing follows: the stopped instance is no longer named anywhere.
    await eventually(everyListingAgrees, TAKEOVER_MS * 2);
  });

  it('a lone instance whose session is cut resigns, reconnects and leads every job again', async () => {
    for (const app of live().slice(1)) {
      await app.close();
      closed.add(app);
    }
    const [lone] = live();
    await eventually(async () => held(lone).length === ALL_JOBS.length, TAKEOVER_MS * 2);
    const id = lone.app.get(InstanceIdentity).id;
    const [{ terminated }] = await query<{ terminated: number }>(
      fleet,
      `SELECT count(pg_terminate_backend(pid))::int AS terminated FROM pg_stat_activity WHERE application_name = $1`,
      [`${LEADERSHIP_APPLICATION_NAME} ${id}`.slice(0, 63)],
    );
    expect(terminated).toBe(1);
    await eventually(async () => held(lone).length === 0, 1_000);
    await eventually(async () => held(lone).length === ALL_JOBS.length, TAKEOVER_MS * 2);
  });
});

describe('the analysis scheduler of a fleet', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet(3, { ANALYSIS_CONCURRENCY: '2' });
  });
  afterAll(() => closeFleet(fleet, new Set()));

  const admin = (app: TestApp, method: 'get' | 'post', path: string) =>
    request(app.http)[method](`/api/v1/admin/scheduler/${path}`).set('X-Admin-Key', ADMIN_KEY).expect(200);
  const statusOf = async (app: TestApp) => (await admin(app, 'get', 'status')).body;
  /** Every live instance, as `app` lists them, reports this state. */
  const allReport = (app: TestApp, state: 'running' | 'paused') =>
    eventually(async () => {
      const status = await statusOf(app);
      return status.status === state && status.instances.every((instance: { status: string }) => instance.status === state);
    }, 5_000);

  it('lists the live instances and sums their concurrency', async () => {
    const status = await statusOf(fleet.all[1]);
    expect(status.instances).toHaveLength(3);
    expect(status.instances.map((instance: { id: string }) => instance.id).sort()).toEqual(
      fleet.all.map((app) => app.app.get(InstanceIdentity).id).sort(),
    );
    expect(status).toMatchObject({ status: 'paused', concurrency: 6, activeThreads: 0 });
    for (const instance of status.instances) {
      expect(instance).toMatchObject({ concurrency: 2, status: 'paused', lastHeartbeatAt: expect.any(String) });
    }
  });

  it('resumed on one instance, runs on all; paused on another, pauses all', async () => {
    await admin(fleet.all[2], 'post', 'resume');
    for (const app of fleet.all) await allReport(app, 'running');
    for (const app of fleet.all) expect((await statusOf(app)).status).toBe('running');

    await admin(fleet.all[0], 'post', 'pause');
    await allReport(fleet.all[1], 'paused');
    await allReport(fleet.all[2], 'paused');
  });

  it('keeps the fleet paused for an instance that starts later, whatever its auto-start says', async () => {
    await admin(fleet.all[1], 'post', 'pause');
    const late = await fleet.start({ ANALYSIS_SCHEDULER_AUTO_START: 'true' });
    const status = await statusOf(late);
    const own = status.instances.find((instance: { id: string }) => instance.id === late.app.get(InstanceIdentity).id);
    expect(own.status).toBe('paused');
    expect(status.instances).toHaveLength(4);

    // Without a stored state, the same variable starts it.
    await query(fleet, 'DELETE FROM analysis_scheduler_settings');
    const free = await fleet.start({ ANALYSIS_SCHEDULER_AUTO_START: 'true' });
    const freeStatus = await statusOf(free);
    expect(freeStatus.status).toBe('running');
    expect(freeStatus.instances.find((instance: { id: string }) => instance.id === free.app.get(InstanceIdentity).id).status).toBe(
      'running',
    );
  });
});

describe('the leadership session', () => {
  let database: TestDatabase;
  const opened: FleetConnection[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const connection of opened) await connection.close();
    await database?.drop();
  });

  const open = async (name: string, idleTimeoutMs: number, lost: string[] = []) => {
    const connection = new FleetConnection(
      database.url,
      name,
      { queryMs: 1_000, idleTimeoutMs },
      {
        onSignal: () => undefined,
        onLost: (reason) => lost.push(reason),
      },
    );
    opened.push(connection);
    await connection.open();
    return connection;
  };

  it('is ended by the server when it stops querying (a frozen leader), which frees its locks for another session', async () => {
    const lost: string[] = [];
    const frozen = await open('frozen', 600, lost);
    const follower = await open('follower', 60_000);
    expect(await frozen.tryLocks(ADVISORY_LOCKS.SINGLETON_JOBS, [901, 902])).toEqual([901, 902]);
    expect(await follower.tryLocks(ADVISORY_LOCKS.SINGLETON_JOBS, [901, 902])).toEqual([]);

    // The frozen session sends nothing more; the follower keeps trying.
    const frozenAt = Date.now();
    await eventually(async () => (await follower.tryLocks(ADVISORY_LOCKS.SINGLETON_JOBS, [901, 902])).length === 2, 5_000);
    expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(400);
    // Its owner hears of it as soon as its event loop runs.
    await eventually(async () => lost.length > 0, 2_000);
    expect(frozen.isOpen).toBe(false);
  });

  it('stays open while it is pinged more often than its idle timeout', async () => {
    const lost: string[] = [];
    const pinged = await open('pinged', 600, lost);
    const other = await open('other', 60_000);
    expect(await pinged.tryLocks(ADVISORY_LOCKS.SINGLETON_JOBS, [903])).toEqual([903]);
    // A session with the same idle timeout, opened after the pinged one's last statement and never
    // pinged: once the server has ended it, the pinged session would have been ended too.
    const unpingedLost: string[] = [];
    await open('unpinged', 600, unpingedLost);
    await eventually(async () => {
      await pinged.ping();
      return unpingedLost.length > 0;
    }, 5_000);
    expect(lost).toEqual([]);
    expect(await other.tryLocks(ADVISORY_LOCKS.SINGLETON_JOBS, [903])).toEqual([]);
  });
});
