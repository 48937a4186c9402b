import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { activeTier } from '../users/active-tier';
import type { PremiumTier } from '../users/user.entity';
import { type PremiumColumns, UsersRepository } from '../users/users.repository';

export type StorePlatform = 'ios' | 'android';

/** What a store says one user is entitled to from one purchase. */
export interface Entitlement {
  tier: Exclude<PremiumTier, 'none'>;
  until: Date;
  platform: StorePlatform;
  txRef: string;
}

const TIER_RANK: Record<PremiumTier, number> = { none: 0, pro: 1, max: 2 };

/**
 * The subscription tier transitions: the only code that decides premium_tier, premium_until,
 * premium_platform and premium_tx_ref (UsersRepository, the owner of users, writes them). Every method runs inside the caller's
 * transaction and locks the user's row first (the lock the watchlist takes too), so
 * a transition and a watchlist add or trim of the same user take turns.
 *
 * `premium_tier` is the tier the service last knew the user to hold: it stays set after
 * `premium_until` passes until a store report or `expireLapsed` records the end. Each
 * transition compares that stored tier with the tier in force after it, never the
 * active tier before it: after a lapse the active tier is already `none`, and a
 * comparison with it would miss the drop. A drop records the moment in `downgraded_at`
 * (starting the 7-day cleanup timer), a rise clears it (cancelling the pending
 * cleanup), an unchanged tier leaves it as it is.
 *
 * The downgrade moment is when the service learns the entitlement ended: the store
 * report or verify that withdraws it, or the first watchlist read or daily cleanup run
 * that sees `premium_until` passed, whichever comes first. Not `premium_until` itself
 * (the specification measures from the downgrade moment, and a report that arrives
 * days late must still leave the user the full 7 days).
 */
@Injectable()
export class TierTransitions {
  constructor(
    private readonly clock: Clock,
    private readonly users: UsersRepository,
  ) {}

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
   * An operator sets the tier by hand (local and dev, to try the tiers): `until` for
   * `pro`/`max`, null for `none`. No store purchase backs it, so no store report will
   * take it back; it ends at `until` like any lapse. False when the user does not exist.
   */
  async setByOperator(manager: EntityManager, userId: number, tier: PremiumTier, until: Date | null): Promise<boolean> {
    const row = await this.users.lockPremium(manager, userId);
    if (!row) return false;
    await this.write(manager, userId, { tier, until: tier === 'none' ? null : until, platform: null, txRef: null }, row);
    return true;
  }

  /**
   * The purchase `txRef` no longer entitles anyone (expired, refunded, revoked, moved to
   * another user). Only withdrawn when it is the purchase the user's tier came from,
   * so an older purchase never takes away a newer one.
   */
  async withdraw(manager: EntityManager, userId: number, txRef: string): Promise<boolean> {
    const row = await this.users.lockPremium(manager, userId);
    if (!row || row.premium_tx_ref !== txRef) return false;
    await this.write(manager, userId, { tier: 'none', until: null, platform: null, txRef: null }, row);
    return true;
  }

  /**
   * A lapse seen before any store reported it: premium_until passed without a renewal.
   * The stored tier becomes `none` and the downgrade moment is now, the moment it was
   * first observed. The purchase reference stays, so the store's later report of the
   * same purchase finds it, sees no drop and keeps this moment.
   */
  async expireLapsed(manager: EntityManager, userId: number): Promise<boolean> {
    const row = await this.users.lockPremium(manager, userId);
    const now = this.clock.now();
    if (!row || row.premium_tier === 'none' || activeTier(toTierInput(row), now) !== 'none') return false;
    await this.users.recordLapse(manager, userId, now);
    return true;
  }

  private async write(
    manager: EntityManager,
    userId: number,
    next: { tier: PremiumTier; until: Date | null; platform: StorePlatform | null; txRef: string | null },
    locked?: PremiumColumns,
  ): Promise<void> {
    const row = locked ?? (await this.users.lockPremium(manager, userId));
    if (!row) return;
    const now = this.clock.now();
    // Stored as the tier in force, so an entitlement that has already ended is never
    // kept as a tier that expireLapsed would record as a second drop later.
    const tierAfter = activeTier({ premiumTier: next.tier, premiumUntil: next.until }, now);
    const before = TIER_RANK[row.premium_tier];
    const after = TIER_RANK[tierAfter];
    // 'keep' leaves a pending cleanup running when the tier neither drops nor rises.
    const downgrade = after < before ? 'drop' : after > before ? 'rise' : 'keep';
    await this.users.writePremium(manager, userId, { ...next, tier: tierAfter, downgrade, at: now });
  }
}

function toTierInput(row: PremiumColumns): { premiumTier: PremiumTier; premiumUntil: Date | null } {
  return { premiumTier: row.premium_tier, premiumUntil: row.premium_until };
}
