import request from 'supertest';
import { LEADERSHIP_APPLICATION_NAME } from '../../src/fleet/fleet-connection';
import { InstanceIdentity } from '../../src/fleet/instance-identity';
import { SingletonJobs } from '../../src/fleet/singleton-jobs';
import { ADMIN_KEY, eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const TAKEOVER_MS = 2_000;
/** Every singleton job an instance registers with the monitor switched on. */
const ALL_JOBS = ['backfill', 'disclosure-monitor', 'downgrade-cleanup', 'rate-limit-sweep', 'stock-sync'];

/** Instances of one service: the first starts the sandbox and owns the database, the others join them. */
async function startFleet(size: number, env: Record<string, string>): Promise<{ first: SandboxedApp; all: TestApp[] }> {
  const fleetEnv = { LEADER_TAKEOVER_MS: String(TAKEOVER_MS), ...env };
  const first = await startSandboxedApp({ app: { env: fleetEnv } });
  const all: TestApp[] = [first];
  for (let i = 1; i < size; i++) {
    all.push(
      await startTestApp({
        database: first.database,
        clock: first.clock,
        rateLimits: RELAXED_RATE_LIMITS,
        env: {
          ADMIN_KEY,
          DART_API_BASE_URL: first.sandbox.baseUrl,
          DART_API_KEY: first.sandbox.apiKey,
          DART_MAX_ATTEMPTS: '2',
          DART_RETRY_BASE_MS: '1',
          DART_TIMEOUT_MS: '2000',
          ...fleetEnv,
        },
      }),
    );
  }
  return { first, all };
}

/** Closes the joiners first: the first instance's close also stops the sandbox and drops the database. */
async function closeFleet(fleet: { first: SandboxedApp; all: TestApp[] } | undefined, closed: Set<TestApp>): Promise<void> {
  if (!fleet) return;
  for (const app of fleet.all.slice(1)) if (!closed.has(app)) await app.close();
  await fleet.first.close();
}

const held = (app: TestApp) => app.app.get(SingletonJobs).held();

describe('three instances on one database', () => {
  let fleet: { first: SandboxedApp; all: TestApp[] };
  const closed = new Set<TestApp>();

  beforeAll(async () => {
    fleet = await startFleet(3, { DISCLOSURE_MONITOR_AUTO_START: 'true', DISCLOSURE_MONITOR_INTERVAL_MS: '1000' });
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

  it('polls the disclosure system from one monitor for the whole fleet', async () => {
    const listCalls = () => fleet.first.sandbox.control.requests.filter((call) => call.path.endsWith('/list.json')).length;
    const before = listCalls();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const made = listCalls() - before;
    // One monitor polling every second makes about 4; three would make about 12.
    expect(made).toBeGreaterThanOrEqual(2);
    expect(made).toBeLessThanOrEqual(6);
  });

  it('stores a new filing once and serves it from every instance', async () => {
    const filing = fleet.first.sandbox.control.publishFiling();
    for (const app of live()) {
      await eventually(async () => (await request(app.http).get(`/api/v1/disclosures/${filing.rcept_no}`)).status === 200);
    }
    const [{ filings, analyses }] = await fleet.first.dataSource.query(
      `SELECT (SELECT count(*)::int FROM disclosures WHERE rcept_no = $1) AS filings,
              (SELECT count(*)::int FROM analyses WHERE rcept_no = $1) AS analyses`,
      [filing.rcept_no],
    );
    expect({ filings, analyses }).toEqual({ filings: 1, analyses: 1 });
  });

  it('gives up every job at once when its leadership session is terminated, and another instance takes them over', async () => {
    const leader = leaderOf('disclosure-monitor')!;
    const id = leader.app.get(InstanceIdentity).id;
    const [{ terminated }] = await fleet.first.dataSource.query(
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
    for (const apps of holders().values()) expect(apps).toHaveLength(1);
  });
});

describe('the analysis scheduler of a fleet', () => {
  let fleet: { first: SandboxedApp; all: TestApp[] };
  const closed = new Set<TestApp>();

  beforeAll(async () => {
    fleet = await startFleet(3, { ANALYSIS_CONCURRENCY: '2' });
  });
  afterAll(async () => {
    for (const app of closed) if (!fleet.all.includes(app)) await app.close();
    await closeFleet(fleet, new Set());
  });

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
    const late = await startTestApp({
      database: fleet.first.database,
      clock: fleet.first.clock,
      rateLimits: RELAXED_RATE_LIMITS,
      env: { ADMIN_KEY, ANALYSIS_SCHEDULER_AUTO_START: 'true', LEADER_TAKEOVER_MS: String(TAKEOVER_MS) },
    });
    closed.add(late);
    const status = await statusOf(late);
    const own = status.instances.find((instance: { id: string }) => instance.id === late.app.get(InstanceIdentity).id);
    expect(own.status).toBe('paused');
    expect(status.instances).toHaveLength(4);

    // Without a stored state, the same variable starts it.
    await fleet.first.dataSource.query('DELETE FROM analysis_scheduler_settings');
    const free = await startTestApp({
      database: fleet.first.database,
      clock: fleet.first.clock,
      rateLimits: RELAXED_RATE_LIMITS,
      env: { ADMIN_KEY, ANALYSIS_SCHEDULER_AUTO_START: 'true', LEADER_TAKEOVER_MS: String(TAKEOVER_MS) },
    });
    closed.add(free);
    const freeStatus = await statusOf(free);
    expect(freeStatus.status).toBe('running');
    expect(freeStatus.instances.find((instance: { id: string }) => instance.id === free.app.get(InstanceIdentity).id).status).toBe('running');
  });
});
