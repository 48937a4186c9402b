import type { DataSource, EntityManager } from 'typeorm';
import type { StoreState } from '../../src/subscriptions/stores/store-state';
import { StorePurchasesRepository } from '../../src/subscriptions/store-purchases.repository';
import { createUser } from '../support/fixtures';
import { untilLockWaiters } from '../support/lock-waits';
import { holdTransaction, useOwnerDatabase } from '../support/owner-database';

const HOUR = 3_600_000;
const NOW = new Date('2026-11-20T03:00:00Z');

/** The store's word on a purchase, signed at `signedAt`: serving until an hour after it by default. */
function stateAt(signedAt: Date, fields: Partial<StoreState> = {}): StoreState {
  return {
    state: 'SUBSCRIPTION_STATE_ACTIVE',
    productId: 'service.pro.monthly',
    expiryTime: new Date(signedAt.getTime() + HOUR),
    serving: true,
    environment: 'production',
    transactionId: `GPA.${signedAt.getTime()}`,
    revokedAt: null,
    signedAt,
    linkedStoreRef: null,
    effectiveAt: signedAt,
    ...fields,
  };
}

/**
 * StorePurchasesRepository, owner of table store_purchases: one row per store subscription, however
 * many verifies and notifications of it arrive at once, which take turns on its row lock.
 */
describe('StorePurchasesRepository', () => {
  const db = useOwnerDatabase();
  let pools: DataSource[];
  let purchases: StorePurchasesRepository;
  let serial = 0;
  const nextRef = () => `purchase-token-${++serial}`;

  beforeAll(async () => {
    pools = [db.dataSource, await db.openPool()];
    purchases = new StorePurchasesRepository(db.dataSource);
  });

  const rowOf = async (storeRef: string) =>
    (
      await db.dataSource.query<
        { id: number; user_id: number | null; store_signed_at: Date | null; entitled_until: Date | null; superseded_at: Date | null }[]
      >('SELECT id, user_id, store_signed_at, entitled_until, superseded_at FROM store_purchases WHERE store_ref = $1', [storeRef])
    )[0];

  /**
   * What a verify or a notification does with a state: under the lock, apply it only when it
   * is newer than the stored one (SubscriptionsService's rule).
   */
  const applyState = (manager: EntityManager, storeRef: string, userId: number, state: StoreState) =>
    purchases.lock(manager, 'android', storeRef).then(async (locked) => {
      if (locked.store_signed_at !== null && locked.store_signed_at >= state.signedAt) return { id: locked.id, applied: false };
      await purchases.recordState(manager, locked.id, userId, state, NOW);
      return { id: locked.id, applied: true };
    });

  it('creates one row for a new purchase locked by many transactions at once, all holding the same row', async () => {
    const storeRef = nextRef();
    const locked = await Promise.all(
      Array.from({ length: 10 }, (_, i) => pools[i % 2].transaction((manager) => purchases.lock(manager, 'android', storeRef))),
    );
    expect(new Set(locked.map((purchase) => purchase.id)).size).toBe(1);
    expect(locked.every((purchase) => purchase.user_id === null && purchase.store_signed_at === null)).toBe(true);
    const [{ n }] = await db.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM store_purchases WHERE store_ref = $1', [
      storeRef,
    ]);
    expect(n).toBe(1);
  });

  it('keeps the same store reference apart on the two platforms', async () => {
    const storeRef = nextRef();
    const [android, ios] = await db.dataSource.transaction(async (manager) => [
      await purchases.lock(manager, 'android', storeRef),
      await purchases.lock(manager, 'ios', storeRef),
    ]);
    expect(android.id).not.toBe(ios.id);
  });

  it('makes a second transaction wait for the lock, then see what the first recorded', async () => {
    const userId = await createUser(db.dataSource);
    const storeRef = nextRef();
    const first = holdTransaction(db.dataSource, (manager) => applyState(manager, storeRef, userId, stateAt(NOW)));
    expect(await first.done).toMatchObject({ applied: true });

    const second = pools[1].transaction((manager) => purchases.lock(manager, 'android', storeRef));
    await untilLockWaiters(db.dataSource);
    await first.commit();
    expect(await second).toMatchObject({ user_id: userId, store_signed_at: NOW });
  });

  it('ends with the newest of many states delivered at once, in any order', async () => {
    const userId = await createUser(db.dataSource);
    const storeRef = nextRef();
    const states = Array.from({ length: 12 }, (_, i) => stateAt(new Date(NOW.getTime() + ((i * 5) % 12) * 60_000)));
    const answers = await Promise.all(
      states.map((state, i) => pools[i % 2].transaction((manager) => applyState(manager, storeRef, userId, state))),
    );

    expect(answers.filter((answer) => answer.applied).length).toBeGreaterThanOrEqual(1);
    const newest = new Date(NOW.getTime() + 11 * 60_000);
    expect(await rowOf(storeRef)).toMatchObject({
      user_id: userId,
      store_signed_at: newest,
      entitled_until: new Date(newest.getTime() + HOUR),
    });
  });

  it('stops entitling a superseded purchase for good, keeping the first moment it was replaced', async () => {
    const userId = await createUser(db.dataSource);
    const storeRef = nextRef();
    await db.dataSource.transaction((manager) => applyState(manager, storeRef, userId, stateAt(NOW)));
    expect((await rowOf(storeRef)).entitled_until).toEqual(new Date(NOW.getTime() + HOUR));

    const replacedAt = new Date(NOW.getTime() + 60_000);
    expect(await db.dataSource.transaction((manager) => purchases.supersede(manager, 'android', storeRef, replacedAt))).toEqual({
      user_id: userId,
    });
    await db.dataSource.transaction((manager) => purchases.supersede(manager, 'android', storeRef, new Date(NOW.getTime() + 120_000)));
    // A later state of the old purchase, serving as the store may still say: it entitles nobody.
    await db.dataSource.transaction((manager) => applyState(manager, storeRef, userId, stateAt(new Date(NOW.getTime() + 180_000))));
    expect(await rowOf(storeRef)).toMatchObject({ superseded_at: replacedAt, entitled_until: null });
    expect(await db.dataSource.transaction((manager) => purchases.supersede(manager, 'android', nextRef(), replacedAt))).toBeUndefined();
  });

  it('answers the purchases in force at a moment: the user’s own, entitling past it', async () => {
    const [userId, neighbour] = [await createUser(db.dataSource), await createUser(db.dataSource)];
    const [current, lapsed, revoked, theirs] = [nextRef(), nextRef(), nextRef(), nextRef()];
    await db.dataSource.transaction(async (manager) => {
      await applyState(manager, current, userId, stateAt(NOW));
      await applyState(manager, lapsed, userId, stateAt(new Date(NOW.getTime() - 2 * HOUR)));
      await applyState(manager, revoked, userId, stateAt(NOW, { serving: false, revokedAt: NOW }));
      await applyState(manager, theirs, neighbour, stateAt(NOW));
    });
    const inForce = (at: Date) => db.dataSource.transaction((manager) => purchases.inForce(manager, userId, at));

    expect((await inForce(NOW)).map((purchase) => purchase.store_ref)).toEqual([current]);
    expect(await inForce(new Date(NOW.getTime() + HOUR))).toEqual([]);
  });

  it('gives the replacements of a purchase that nobody verified yet to its user, and no others', async () => {
    const [userId, neighbour] = [await createUser(db.dataSource), await createUser(db.dataSource)];
    const [old, unclaimed, claimed, unrelated] = [nextRef(), nextRef(), nextRef(), nextRef()];
    await db.dataSource.transaction(async (manager) => {
      await applyState(manager, old, userId, stateAt(NOW));
      const unclaimedRow = await purchases.lock(manager, 'android', unclaimed);
      await purchases.recordState(manager, unclaimedRow.id, null, stateAt(NOW, { linkedStoreRef: old }), NOW);
      await applyState(manager, claimed, neighbour, stateAt(NOW, { linkedStoreRef: old }));
      await purchases.lock(manager, 'android', unrelated);
      await purchases.adoptReplacements(manager, 'android', old, userId);
    });
    expect((await rowOf(unclaimed)).user_id).toBe(userId);
    expect((await rowOf(claimed)).user_id).toBe(neighbour);
    expect((await rowOf(unrelated)).user_id).toBeNull();
  });
});
