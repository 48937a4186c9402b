import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { activeTier } from '../users/active-tier';
import type { PremiumTier } from '../users/user.entity';

export type StorePlatform = 'ios' | 'android';

/** What a store says one user is entitled to from one purchase. */
export interface Entitlement {
  tier: Exclude<PremiumTier, 'none'>;
  until: Date;
  platform: StorePlatform;
  txRef: string;
}

const TIER_RANK: Record<PremiumTier, number> = { none: 0, pro: 1, max: 2 };

interface PremiumRow {
  premium_tier: PremiumTier;
  premium_until: Date | null;
  premium_tx_ref: string | null;
}

/**
 * The subscription tier transitions: the only writer of premium_tier, premium_until,
 * premium_platform and premium_tx_ref. Every method runs inside the caller's
 * transaction and locks the user's row first (the lock the watchlist takes too), so
 * a transition and a watchlist add or trim of the same user take turns.
 *
 * Each one compares the active tier before and after: a drop records the moment in
 * `downgraded_at` (starting the 7-day cleanup timer), a rise clears it (cancelling
 * the pending cleanup), an unchanged tier leaves it as it is.
 */
@Injectable()
export class TierTransitions {
  constructor(private readonly clock: Clock) {}

  /** The store confirms an active subscription: the tier and expiry come from it. */
  async grant(manager: EntityManager, userId: number, entitlement: Entitlement): Promise<void> {
    await this.write(manager, userId, {
      tier: entitlement.tier,
      until: entitlement.until,
      platform: entitlement.platform,
      txRef: entitlement.txRef,
    });
  }

  /**
   * The purchase `txRef` no longer entitles anyone (expired, refunded, revoked, moved to
   * another user). Only withdrawn when it is the purchase the user's tier came from,
   * so an older purchase never takes away a newer one.
   */
  async withdraw(manager: EntityManager, userId: number, txRef: string): Promise<boolean> {
    const row = await this.lock(manager, userId);
    if (!row || row.premium_tx_ref !== txRef) return false;
    await this.write(manager, userId, { tier: 'none', until: null, platform: null, txRef: null }, row);
    return true;
  }

  /**
   * Expiry detected: premium_until passed without a renewal. The tier column follows
   * the active tier, and the downgrade took effect at premium_until, not now.
   */
  async expireLapsed(manager: EntityManager, userId: number): Promise<boolean> {
    const row = await this.lock(manager, userId);
    const now = this.clock.now();
    if (!row || row.premium_tier === 'none' || activeTier(toTierInput(row), now) !== 'none') return false;
    await manager.query(`UPDATE users SET premium_tier = 'none', downgraded_at = premium_until WHERE id = $1`, [userId]);
    return true;
  }

  private async write(
    manager: EntityManager,
    userId: number,
    next: { tier: PremiumTier; until: Date | null; platform: StorePlatform | null; txRef: string | null },
    locked?: PremiumRow,
  ): Promise<void> {
    const row = locked ?? (await this.lock(manager, userId));
    if (!row) return;
    const now = this.clock.now();
    const before = TIER_RANK[activeTier(toTierInput(row), now)];
    const after = TIER_RANK[activeTier({ premiumTier: next.tier, premiumUntil: next.until }, now)];
    // 'keep' leaves a pending cleanup running when the tier neither drops nor rises.
    const downgrade = after < before ? 'drop' : after > before ? 'rise' : 'keep';
    await manager.query(
      `UPDATE users SET premium_tier = $2, premium_until = $3, premium_platform = $4, premium_tx_ref = $5,
         downgraded_at = CASE $6::text WHEN 'drop' THEN $7::timestamptz WHEN 'rise' THEN NULL ELSE downgraded_at END
       WHERE id = $1`,
      [userId, next.tier, next.until, next.platform, next.txRef, downgrade, now],
    );
  }

  private async lock(manager: EntityManager, userId: number): Promise<PremiumRow | undefined> {
    const [row] = await manager.query<PremiumRow[]>(
      'SELECT premium_tier, premium_until, premium_tx_ref FROM users WHERE id = $1 FOR NO KEY UPDATE',
      [userId],
    );
    return row;
  }
}

function toTierInput(row: PremiumRow): { premiumTier: PremiumTier; premiumUntil: Date | null } {
  return { premiumTier: row.premium_tier, premiumUntil: row.premium_until };
}
