import { PushTokensRepository } from '../../src/push-tokens/push-tokens.repository';
import { UsersRepository } from '../../src/users/users.repository';
import { WatchStocksRepository } from '../../src/watchlist/watch-stocks.repository';
import { createUser } from '../support/fixtures';
import { eventually } from '../support/eventually';
import { lockWaiters, untilLockWaiters } from '../support/lock-waits';
import { holdTransaction, useOwnerDatabase } from '../support/owner-database';

/**
 * WatchStocksRepository, owner of table watch_stocks, and the user's row lock (UsersRepository.lockPremium)
 * the capacity rule takes before it counts and inserts: what WatchlistService builds on.
 */
describe('WatchStocksRepository', () => {
  const db = useOwnerDatabase();
  let entries: WatchStocksRepository;
  let users: UsersRepository;
  let serial = 0;
  const nextCorp = () => `3${String(++serial).padStart(7, '0')}`;
  const entry = (userId: number, corpCode = nextCorp()) => ({ userId, corpCode, corpName: `company ${corpCode}`, stockCode: null });
  const corpsOf = async (userId: number) => (await entries.list(userId)).map((row) => row.corp_code);

  beforeAll(() => {
    entries = new WatchStocksRepository(db.dataSource);
    users = new UsersRepository(db.dataSource);
  });

  describe('insert', () => {
    it('stores one entry when the same company is inserted by parallel transactions, answering it to exactly one', async () => {
      const userId = await createUser(db.dataSource);
      const other = await db.openPool();
      const same = entry(userId);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? db.dataSource : other).transaction((manager) => entries.insert(manager, same))),
      );
      expect(answers.filter((answer) => answer !== undefined)).toEqual([
        expect.objectContaining({ user_id: userId, corp_code: same.corpCode }),
      ]);
      expect(await corpsOf(userId)).toEqual([same.corpCode]);
    });

    it('answers the new row with its defaults: notifications on, no filters', async () => {
      const userId = await createUser(db.dataSource);
      const row = await db.dataSource.transaction((manager) => entries.insert(manager, entry(userId)));
      expect(row).toMatchObject({
        user_id: userId,
        notify_enabled: true,
        categories: null,
        min_impact: null,
        created_at: expect.any(Date),
      });
    });
  });

  describe('keepNewest', () => {
    it('keeps the newest entries, the later id first among entries added in the same transaction', async () => {
      const userId = await createUser(db.dataSource);
      const neighbour = await createUser(db.dataSource);
      const older = [entry(userId), entry(userId)];
      // One transaction: these share their creation time, so only the id orders them.
      const together = [entry(userId), entry(userId), entry(userId)];
      for (const e of older) await db.dataSource.transaction((manager) => entries.insert(manager, e));
      await db.dataSource.transaction(async (manager) => {
        for (const e of together) await entries.insert(manager, e);
      });
      await db.dataSource.transaction((manager) => entries.insert(manager, entry(neighbour)));

      expect(await db.dataSource.transaction((manager) => entries.keepNewest(manager, userId, 2))).toBe(3);
      expect(await corpsOf(userId)).toEqual([together[2].corpCode, together[1].corpCode]);
      expect(await corpsOf(neighbour)).toHaveLength(1);
      expect(await db.dataSource.transaction((manager) => entries.keepNewest(manager, userId, 2))).toBe(0);
    });
  });

  describe('setNotify', () => {
    it('changes the fields given, clears a filter given as null, and leaves the others', async () => {
      const userId = await createUser(db.dataSource);
      const { corpCode } = entry(userId);
      await db.dataSource.transaction((manager) => entries.insert(manager, entry(userId, corpCode)));

      expect(await entries.setNotify(userId, corpCode, { categories: ['major_event', 'periodic'], minImpact: 'high' })).toMatchObject({
        notify_enabled: true,
        categories: ['major_event', 'periodic'],
        min_impact: 'high',
      });
      expect(await entries.setNotify(userId, corpCode, { notifyEnabled: false })).toMatchObject({
        notify_enabled: false,
        categories: ['major_event', 'periodic'],
        min_impact: 'high',
      });
      expect(await entries.setNotify(userId, corpCode, { categories: null })).toMatchObject({
        notify_enabled: false,
        categories: null,
        min_impact: 'high',
      });
      expect(await entries.setNotify(userId, corpCode, { minImpact: null, notifyEnabled: true })).toMatchObject({
        notify_enabled: true,
        categories: null,
        min_impact: null,
      });
    });

    it("answers undefined for a company not on the user's list, and changes nobody else's entry", async () => {
      const [userId, neighbour] = [await createUser(db.dataSource), await createUser(db.dataSource)];
      const theirs = entry(neighbour);
      await db.dataSource.transaction((manager) => entries.insert(manager, theirs));
      expect(await entries.setNotify(userId, theirs.corpCode, { notifyEnabled: false })).toBeUndefined();
      expect(await entries.remove(userId, theirs.corpCode)).toBe(false);
      expect((await entries.list(neighbour))[0]).toMatchObject({ corp_code: theirs.corpCode, notify_enabled: true });
    });
  });

  describe("the user's row lock the capacity rule takes (UsersRepository.lockPremium)", () => {
    it('makes a second holder wait, and then count what the first committed', async () => {
      const userId = await createUser(db.dataSource);
      const first = holdTransaction(db.dataSource, async (manager) => {
        await users.lockPremium(manager, userId);
        await entries.insert(manager, entry(userId));
        return entries.count(manager, userId);
      });
      expect(await first.done).toBe(1);

      const second = db.dataSource.transaction(async (manager) => {
        await users.lockPremium(manager, userId);
        return entries.count(manager, userId);
      });
      await untilLockWaiters(db.dataSource);
      await first.commit();
      expect(await second).toBe(1);
    });

    it("leaves other features' inserts for the user unblocked (their foreign-key check)", async () => {
      const userId = await createUser(db.dataSource);
      const held = holdTransaction(db.dataSource, (manager) => users.lockPremium(manager, userId));
      expect(await held.done).toMatchObject({ premium_tier: 'none' });
      let registered = false;
      const register = new PushTokensRepository(db.dataSource)
        .register(userId, `token-of-${userId}`, 'android')
        .then(() => (registered = true));
      try {
        // Whichever comes first: the insert is done, or it waits on a lock.
        await eventually(async () => registered || (await lockWaiters(db.dataSource)) > 0);
        expect(registered).toBe(true);
      } finally {
        await held.commit();
        await register;
      }
      const [{ n }] = await db.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM push_tokens WHERE user_id = $1', [userId]);
      expect(n).toBe(1);
    });
  });
});
