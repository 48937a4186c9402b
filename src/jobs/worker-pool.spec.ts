import { SHUTDOWN_GRACE_MS, WorkerPool, type WorkerPoolOptions } from './worker-pool';

/** A job that finishes when the test releases it. */
interface HeldJob {
  id: number;
  release(): void;
  done: Promise<void>;
}

function heldJobs(count: number): HeldJob[] {
  return Array.from({ length: count }, (_, id) => {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    return { id, release, done };
  });
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkerPool', () => {
  let pool: WorkerPool<HeldJob> | undefined;

  afterEach(async () => {
    await pool?.shutdown(0);
    pool = undefined;
  });

  function startPool(queue: HeldJob[], options: Partial<WorkerPoolOptions<HeldJob>> = {}) {
    const started: number[] = [];
    const errors: string[] = [];
    pool = new WorkerPool<HeldJob>({
      name: 'test-pool',
      workerId: 'test-host:1:abcdef',
      concurrency: 2,
      pollIntervalMs: 60_000,
      claim: () => Promise.resolve(queue.shift() ?? null),
      work: async (job) => {
        started.push(job.id);
        await job.done;
      },
      onClaimError: (error) => errors.push(`claim: ${String(error)}`),
      onWorkError: (job, error) => errors.push(`work ${job.id}: ${String(error)}`),
      ...options,
    });
    pool.start();
    return { pool, started, errors };
  }

  it('runs at most `concurrency` jobs at once and refills a slot as each finishes', async () => {
    const jobs = heldJobs(3);
    const { pool, started } = startPool([...jobs]);
    await tick();
    expect(started).toEqual([0, 1]);
    expect(pool.active).toBe(2);

    jobs[0].release();
    await tick();
    expect(started).toEqual([0, 1, 2]);

    jobs[1].release();
    jobs[2].release();
    expect(await pool.drain()).toBe(true);
    expect(pool.active).toBe(0);
  });

  it('claims nothing while stopped or while canClaim says no, and again after a wake-up', async () => {
    const jobs = heldJobs(1);
    let allowed = false;
    const { pool, started } = startPool([...jobs], { canClaim: () => allowed });
    await tick();
    expect(started).toEqual([]);

    allowed = true;
    pool.stop();
    pool.wake();
    await tick();
    expect(started).toEqual([]);

    expect(pool.start()).toBe(true);
    expect(pool.start()).toBe(false);
    await tick();
    expect(started).toEqual([0]);
    jobs[0].release();
    await pool.drain();
  });

  it('runs the preparing pass before filling, one pass at a time, once more for wake-ups during a pass', async () => {
    const queue: HeldJob[] = [];
    let passes = 0;
    let releasePass!: () => void;
    const { pool, started } = startPool(queue, {
      prepare: async () => {
        passes += 1;
        if (passes === 1) await new Promise<void>((resolve) => (releasePass = resolve));
        queue.push(...heldJobs(1).map((job) => (job.release(), job)));
      },
    });
    pool.wake();
    pool.wake();
    await tick();
    expect(passes).toBe(1);

    releasePass();
    expect(await pool.drain()).toBe(true);
    expect(passes).toBe(2);
    expect(started).toHaveLength(2);
  });

  it('reports a failed preparing pass as a claim failure, and passes again at the next wake-up', async () => {
    let passes = 0;
    const { pool, errors } = startPool([], {
      prepare: () => {
        passes += 1;
        return passes === 1 ? Promise.reject(new Error('terminating connection due to administrator command')) : Promise.resolve();
      },
    });
    expect(await pool.drain()).toBe(true);
    expect(errors).toEqual(['claim: Error: terminating connection due to administrator command']);

    pool.wake();
    expect(await pool.drain()).toBe(true);
    expect(passes).toBe(2);
    expect(errors).toHaveLength(1);
  });

  it('reports claim and work failures and frees their slots', async () => {
    let claims = 0;
    const { pool, errors } = startPool([], {
      claim: () => {
        claims += 1;
        if (claims === 1) return Promise.reject(new Error('connection refused'));
        return Promise.resolve(claims === 2 ? heldJobs(1)[0] : null);
      },
      work: (job) => Promise.reject(new Error(`job ${job.id} not recorded`)),
    });
    await pool.drain();
    pool.fill();
    await pool.drain();

    expect(errors).toEqual(['claim: Error: connection refused', 'work 0: Error: job 0 not recorded']);
    expect(pool.active).toBe(0);
  });

  it('at shutdown stops claiming and waits up to the grace for running jobs, then says how many are left', async () => {
    const jobs = heldJobs(3);
    const { pool, started } = startPool([...jobs]);
    await tick();

    expect(await pool.shutdown(10)).toBe(2);
    expect(pool.isRunning).toBe(false);

    jobs[0].release();
    jobs[1].release();
    expect(await pool.drain(1000)).toBe(true);
    expect(started).toEqual([0, 1]);
  });

  it('never waits longer than SHUTDOWN_GRACE_MS at shutdown, however long the lease', async () => {
    const jobs = heldJobs(1);
    const { pool } = startPool([...jobs]);
    await tick();
    jest.useFakeTimers();
    try {
      let unfinished: number | undefined;
      const stopped = pool.shutdown(60 * 60_000).then((count) => (unfinished = count));
      await jest.advanceTimersByTimeAsync(SHUTDOWN_GRACE_MS - 1);
      expect(unfinished).toBeUndefined();
      await jest.advanceTimersByTimeAsync(1);
      await stopped;
      expect(unfinished).toBe(1);
    } finally {
      jest.useRealTimers();
      jobs[0].release();
    }
  });
});
