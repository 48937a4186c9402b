import type { DataSource } from 'typeorm';
import { JobRunsRepository, type JobRunProgress } from '../../src/jobs/runs/job-runs.repository';
import { useOwnerDatabase } from '../support/owner-database';

/**
 * JobRunsRepository, owner of table job_runs: a counter added in the transaction of the work
 * it counts (the backfill's `saved`) moves with that work only, and no progress write of an
 * executor sets it back.
 */
describe('JobRunsRepository counters kept in the work transaction', () => {
  const db = useOwnerDatabase();
  let runs: JobRunsRepository;
  let otherInstance: JobRunsRepository;
  let otherPool: DataSource;

  beforeAll(async () => {
    runs = new JobRunsRepository(db.dataSource);
    otherPool = await db.openPool();
    otherInstance = new JobRunsRepository(otherPool);
  });
  afterEach(() => db.dataSource.query('DELETE FROM job_runs'));

  const progress = (counts: Record<string, number>, processed = 1): JobRunProgress => ({
    phase: 'collecting',
    total: 10,
    processed,
    failed: 0,
    counts,
    checkpoint: { item: processed },
    lastError: null,
  });
  /** A backfill run executed by `runs`' instance. */
  async function executedRun(): Promise<number> {
    const row = await runs.begin('backfill', {}, { saved: 0 });
    expect(await runs.claim('backfill', 60_000)).toMatchObject({ id: row!.id });
    return row!.id;
  }
  const countsOf = async (id: number) =>
    (await db.dataSource.query<{ counts: Record<string, number> }[]>('SELECT counts FROM job_runs WHERE id = $1', [id]))[0].counts;

  it('adds with a transaction that commits, and not with one that rolls back', async () => {
    const id = await executedRun();
    await db.dataSource.transaction(async (manager) => expect(await runs.addToCount(manager, id, 'saved', 2)).toBe(true));
    await expect(
      db.dataSource.transaction(async (manager) => {
        expect(await runs.addToCount(manager, id, 'saved', 5)).toBe(true);
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect(await countsOf(id)).toEqual({ saved: 2 });
  });

  it('counts every one of many parallel transactions on two instances exactly once', async () => {
    const id = await executedRun();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? db.dataSource : otherPool).transaction((manager) => runs.addToCount(manager, id, 'saved', 1)),
      ),
    );
    expect(await countsOf(id)).toEqual({ saved: 30 });
  });

  it('is kept by a progress write that does not carry it, while the counters it carries are replaced', async () => {
    const id = await executedRun();
    await db.dataSource.transaction((manager) => runs.addToCount(manager, id, 'saved', 3));
    // An older snapshot of the executor, written after the count: it must not set `saved` back.
    expect(await runs.saveProgress(id, progress({ other: 4 }))).toBe(true);
    expect(await countsOf(id)).toEqual({ saved: 3, other: 4 });
    expect(await runs.release(id, progress({ other: 1 }, 2))).toBe(true);
    expect(await countsOf(id)).toEqual({ saved: 3, other: 1 });
  });

  it('refuses to count for an executor that lost the run, so its transaction rolls back', async () => {
    const id = await executedRun();
    // The executor went silent: another instance takes the run over.
    await db.dataSource.query("UPDATE job_runs SET updated_at = now() - interval '1 hour' WHERE id = $1", [id]);
    expect(await otherInstance.claim('backfill', 60_000)).toMatchObject({ id });

    expect(await db.dataSource.transaction((manager) => runs.addToCount(manager, id, 'saved', 1))).toBe(false);
    expect(await otherPool.transaction((manager) => otherInstance.addToCount(manager, id, 'saved', 1))).toBe(true);
    expect(await countsOf(id)).toEqual({ saved: 1 });
  });
});
