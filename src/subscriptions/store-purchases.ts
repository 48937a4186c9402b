import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { StorePurchaseEntity } from './store-purchase.entity';
import type { StoreState } from './stores/store-state';
import type { StorePlatform } from './tier-transitions';

/**
 * Owner of table store_purchases: the only writer. One row per store subscription;
 * SubscriptionsService binds it to a user and records the store's state, in the
 * caller's transaction, under the row lock `lock` takes.
 */
@Injectable()
export class StorePurchases {
  /**
   * The purchase's row, created if new, locked FOR UPDATE until the transaction ends:
   * two verifies or notifications of one purchase take turns on it.
   */
  async lock(manager: EntityManager, platform: StorePlatform, storeRef: string): Promise<{ id: number; user_id: number | null }> {
    await manager.query(
      `INSERT INTO store_purchases (platform, store_ref) VALUES ($1, $2)
       ON CONFLICT ON CONSTRAINT uq_store_purchases_platform_ref DO NOTHING`,
      [platform, storeRef],
    );
    const [purchase] = await manager.query<{ id: number; user_id: number | null }[]>(
      'SELECT id, user_id FROM store_purchases WHERE platform = $1 AND store_ref = $2 FOR UPDATE',
      [platform, storeRef],
    );
    return purchase;
  }

  /** Records who the purchase entitles and the store's state of it, as of `at`. */
  async recordState(manager: EntityManager, purchaseId: number, userId: number | null, state: StoreState, at: Date): Promise<void> {
    await manager
      .getRepository(StorePurchaseEntity)
      .update({ id: purchaseId }, { userId, productId: state.productId, state: state.state, expiresAt: state.expiryTime, updatedAt: at });
  }
}
