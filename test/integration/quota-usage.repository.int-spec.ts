import type { DataSource, EntityManager } from 'typeorm';
import { RevealedDisclosuresRepository } from '../../src/analysis/revealed-disclosures.repository';
import { QuotaUsageRepository } from '../../src/quota/quota-usage.repository';
import { createUser, insertFilings } from '../support/fixtures';
import { useOwnerDatabase } from '../support/owner-database';

const WEEK = new Date('2026-11-15T15:00:00Z'); // Monday 2026-11-16 00:00 in Korea
const NEXT_WEEK = new Date('2026-11-22T15:00:00Z');
const LIMIT = 5;

/**
 * QuotaUsageRepository, owner of table quota_usage: every change is one conditional statement in the
 * caller's transaction, so parallel requests, on one instance or several, never pass the limit.
 */
describe('QuotaUsageRepository', () => {
  const db = useOwnerDatabase();
  const quota = new QuotaUsageRepository();
  let pools: DataSource[];

  beforeAll(async () => {
    pools = [db.dataSource, await db.openPool()];
  });

  /** Runs `work` in a transaction of its own on one of the two instances' pools. */
  const onInstance = <T>(i: number, work: (manager: EntityManager) => Promise<T>): Promise<T> => pools[i % pools.length].transaction(work);
  const usedBy = async (userId: number) =>
    (await db.dataSource.query<{ weekly_used: number }[]>('SELECT weekly_used FROM quota_usage WHERE user_id = $1', [userId]))[0]
      ?.weekly_used;

  it('creates one row for a first use that arrives on many requests at once', async () => {
    const userId = await createUser(db.dataSource);
    await Promise.all(Array.from({ length: 10 }, (_, i) => onInstance(i, (manager) => quota.startWeek(manager, userId, WEEK))));
    const rows = await db.dataSource.query<{ weekly_used: number; week_start: Date }[]>(
      'SELECT weekly_used, week_start FROM quota_usage WHERE user_id = $1',
      [userId],
    );
    expect(rows).toEqual([{ weekly_used: 0, week_start: WEEK }]);
  });

  it('charges exactly up to the limit under parallel charges, each answered its own count', async () => {
    const userId = await createUser(db.dataSource);
    await db.dataSource.transaction((manager) => quota.startWeek(manager, userId, WEEK));
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => onInstance(i, (manager) => quota.charge(manager, userId, LIMIT))),
    );
    expect(answers.filter((used) => used !== null).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(answers.filter((used) => used === null)).toHaveLength(11);
    expect(await usedBy(userId)).toBe(LIMIT);
  });

  it('never passes the limit while units are given back at the same time', async () => {
    const userId = await createUser(db.dataSource);
    await db.dataSource.transaction(async (manager) => {
      await quota.startWeek(manager, userId, WEEK);
      for (let i = 0; i < LIMIT; i++) await quota.charge(manager, userId, LIMIT);
    });
    const charges = Array.from({ length: 12 }, (_, i) => onInstance(i, (manager) => quota.charge(manager, userId, LIMIT)));
    const givebacks = Array.from({ length: 3 }, (_, i) => onInstance(i + 1, (manager) => quota.giveBack(manager, userId)));
    const [answers] = await Promise.all([Promise.all(charges), Promise.all(givebacks)]);

    const charged = answers.filter((used) => used !== null);
    expect(charged.every((used) => used! <= LIMIT)).toBe(true);
    expect(charged.length).toBeLessThanOrEqual(3);
    expect(await usedBy(userId)).toBe(LIMIT - 3 + charged.length);
  });

  it('keeps the count within a week, and starts a new week at 0, from below 0 too', async () => {
    const userId = await createUser(db.dataSource);
    await db.dataSource.transaction(async (manager) => {
      await quota.startWeek(manager, userId, WEEK);
      await quota.charge(manager, userId, LIMIT);
      await quota.startWeek(manager, userId, WEEK);
    });
    expect(await usedBy(userId)).toBe(1);

    await db.dataSource.transaction(async (manager) => {
      for (let i = 0; i < 3; i++) await quota.giveBack(manager, userId);
    });
    expect(await usedBy(userId)).toBe(-2);
    await db.dataSource.transaction((manager) => quota.startWeek(manager, userId, NEXT_WEEK));
    expect(await db.dataSource.transaction((manager) => quota.read(manager, userId))).toEqual({
      weekly_used: 0,
      premium_tier: 'none',
      premium_until: null,
    });
  });

  it('charges nothing without a row, and reads nothing for a user without one', async () => {
    const userId = await createUser(db.dataSource);
    expect(await db.dataSource.transaction((manager) => quota.charge(manager, userId, LIMIT))).toBeNull();
    expect(await db.dataSource.transaction((manager) => quota.read(manager, userId))).toBeUndefined();
  });

  describe('with the reveal record (AnalysisService.reveal: record, then charge a new record)', () => {
    const reveals = new RevealedDisclosuresRepository();
    let serial = 0;

    /** One reveal as AnalysisService does it, in a transaction; null when the quota was spent (rolled back). */
    const reveal = (instance: number, userId: number, rceptNo: string) =>
      onInstance(instance, async (manager) => {
        if (!(await reveals.record(manager, userId, rceptNo))) return 'already';
        const used = await quota.charge(manager, userId, LIMIT);
        if (used === null) throw new Error('QUOTA_EXHAUSTED');
        return used;
      }).catch((error: unknown) => {
        if (error instanceof Error && error.message === 'QUOTA_EXHAUSTED') return null;
        throw error;
      });

    const newFiling = async () => {
      const rceptNo = `20261116${String(++serial).padStart(6, '0')}`;
      await insertFilings(db.dataSource, [{ rcept_no: rceptNo, corp_code: '40000001' }]);
      return rceptNo;
    };

    it('charges once for one filing revealed by many requests at once', async () => {
      const userId = await createUser(db.dataSource);
      await db.dataSource.transaction((manager) => quota.startWeek(manager, userId, WEEK));
      const rceptNo = await newFiling();
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => reveal(i, userId, rceptNo)));
      expect(answers.filter((answer) => answer === 'already')).toHaveLength(9);
      expect(answers.filter((answer) => answer === 1)).toHaveLength(1);
      expect(await usedBy(userId)).toBe(1);
    });

    it('keeps no record of a reveal the spent quota refused, so it can be paid for later', async () => {
      const userId = await createUser(db.dataSource);
      await db.dataSource.transaction((manager) => quota.startWeek(manager, userId, WEEK));
      const paid = await Promise.all(Array.from({ length: LIMIT }, newFiling));
      for (const rceptNo of paid) await reveal(0, userId, rceptNo);
      const refused = await newFiling();
      expect(await reveal(1, userId, refused)).toBeNull();

      await db.dataSource.transaction((manager) => quota.giveBack(manager, userId));
      expect(await reveal(0, userId, refused)).toBe(LIMIT);
      expect(await reveal(1, userId, refused)).toBe('already');
    });
  });
});
