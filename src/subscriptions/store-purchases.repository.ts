import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { StoreEnvironment, StoreState } from './stores/store-state';
import type { StorePlatform } from './tier-transitions';

/** A purchase row as a transaction sees it under its lock. */
export interface LockedPurchase {
  id: number;
  user_id: number | null;
  store_signed_at: Date | null;
}

/** A purchase that entitles its user now (TierTransitions derives the tier from these). */
export interface PurchaseInForce {
  platform: StorePlatform;
  store_ref: string;
  product_id: string | null;
  environment: StoreEnvironment | null;
  entitled_until: Date;
}

/**
 * Owner of table store_purchases: the only writer. One row per store subscription with
 * the store's latest word on it; SubscriptionsService binds it to a user and records each
 * state in the caller's transaction, under the row lock `lock` takes.
 */
@Injectable()
export class StorePurchasesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The purchase's row, created if new, locked FOR UPDATE until the transaction ends:
   * two verifies or notifications of one purchase take turns on it.
   */
  async lock(manager: EntityManager, platform: StorePlatform, storeRef: string): Promise<LockedPurchase> {
    await manager.query(
      `INSERT INTO store_purchases (platform, store_ref) VALUES ($1, $2)
       ON CONFLICT ON CONSTRAINT uq_store_purchases_platform_ref DO NOTHING`,
      [platform, storeRef],
    );
    const [purchase] = await manager.query<LockedPurchase[]>(
      'SELECT id, user_id, store_signed_at FROM store_purchases WHERE platform = $1 AND store_ref = $2 FOR UPDATE',
      [platform, storeRef],
    );
    return purchase;
  }

  /** The store's time of the state stored for a purchase, read without a lock (a cheap early answer; `lock` decides). */
  async storedSignedAt(platform: StorePlatform, storeRef: string): Promise<Date | null> {
    const [row] = await this.dataSource.query<{ store_signed_at: Date | null }[]>(
      'SELECT store_signed_at FROM store_purchases WHERE platform = $1 AND store_ref = $2',
      [platform, storeRef],
    );
    return row?.store_signed_at ?? null;
  }

  /**
   * Records the store's state of the purchase and who it entitles. It entitles until the
   * state's end while the store says it serves and no newer purchase replaced it.
   */
  async recordState(manager: EntityManager, purchaseId: number, userId: number | null, state: StoreState, at: Date): Promise<void> {
    await manager.query(
      `UPDATE store_purchases
          SET user_id = $2, product_id = $3, state = $4, expires_at = $5, environment = $6, transaction_id = $7,
              revoked_at = $8, store_signed_at = $9, linked_store_ref = COALESCE($10, linked_store_ref),
              entitled_until = CASE WHEN superseded_at IS NULL THEN $11::timestamptz END, updated_at = $12
        WHERE id = $1`,
      [
        purchaseId,
        userId,
        state.productId,
        state.state,
        state.expiryTime,
        state.environment,
        state.transactionId,
        state.revokedAt,
        state.signedAt,
        state.linkedStoreRef,
        state.serving ? state.expiryTime : null,
        at,
      ],
    );
  }

  /** Binds the purchase to a user without changing its state (a later verify or a plan change). */
  async bind(manager: EntityManager, purchaseId: number, userId: number): Promise<void> {
    await manager.query('UPDATE store_purchases SET user_id = $2 WHERE id = $1', [purchaseId, userId]);
  }

  /**
   * The purchase a plan change replaced stops entitling: the stores entitle the new
   * purchase only. Answers its user (who the new purchase then belongs to), if any.
   */
  async supersede(
    manager: EntityManager,
    platform: StorePlatform,
    storeRef: string,
    at: Date,
  ): Promise<{ user_id: number | null } | undefined> {
    const [row] = await manager.query<{ user_id: number | null }[]>(
      `WITH replaced AS (
         UPDATE store_purchases SET superseded_at = COALESCE(superseded_at, $3), entitled_until = NULL
          WHERE platform = $1 AND store_ref = $2 RETURNING user_id)
       SELECT user_id FROM replaced`,
      [platform, storeRef, at],
    );
    return row;
  }

  /** Purchases that replaced `storeRef` and no user has verified yet now belong to `userId`. */
  async adoptReplacements(manager: EntityManager, platform: StorePlatform, storeRef: string, userId: number): Promise<void> {
    await manager.query('UPDATE store_purchases SET user_id = $3 WHERE platform = $1 AND linked_store_ref = $2 AND user_id IS NULL', [
      platform,
      storeRef,
      userId,
    ]);
  }

  /** The user's purchases that entitle at `now`. */
  inForce(manager: EntityManager, userId: number, now: Date): Promise<PurchaseInForce[]> {
    return manager.query<PurchaseInForce[]>(
      `SELECT platform, store_ref, product_id, environment, entitled_until FROM store_purchases
        WHERE user_id = $1 AND entitled_until > $2`,
      [userId, now],
    );
  }
}
