import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { activeTier } from '../users/active-tier';
import type { PremiumTier } from '../users/user.entity';
import { type PremiumColumns, UsersRepository } from '../users/users.repository';
import { type PurchaseInForce, StorePurchasesRepository } from './store-purchases.repository';
import type { SubscriptionsConfig } from './subscriptions.config';

export type StorePlatform = 'ios' | 'android';

/** What the user is entitled to, and the purchase it comes from (none for an operator's tier). */
export interface Entitlement {
  tier: PremiumTier;
  until: Date | null;
  platform: StorePlatform | null;
  txRef: string | null;
  productId: string | null;
}

const TIER_RANK: Record<PremiumTier, number> = { none: 0, pro: 1, max: 2 };
const NO_ENTITLEMENT: Entitlement = { tier: 'none', until: null, platform: null, txRef: null, productId: null };

/**
 * The subscription tier transitions: the only code that decides premium_tier, premium_until,
 * premium_platform, premium_tx_ref and the downgrade timer (UsersRepository, the owner of
 * users, writes them). Every method runs inside the caller's transaction and locks the
 * user's row first (the lock the watchlist takes too), so a transition and a watchlist
 * add or trim of the same user take turns.
 *
 * The tier is derived from all of the user's purchases in force (the highest tier, until
 * the latest end among that tier's purchases), never from the last store message alone:
 * an expired iOS purchase leaves the pro of an Android one. A tier an operator set by
 * hand counts as one more purchase until it lapses.
 *
 * `premium_tier` is the tier the service last knew the user to hold: it stays set after
 * `premium_until` passes until a store report or the lapse sweep records the end. Each
 * transition compares that stored tier with the tier in force after it. A drop records
 * when it took effect in `downgraded_at` (starting the 7-day cleanup timer): `premium_until`
 * when the tier had lapsed before anyone noticed, else when the store says the change took
 * effect (a refund's revocation, the start of a lower plan). `downgraded_from` keeps the
 * highest tier held since, and only a rise back to it cancels the cleanup: max → none → pro
 * still trims what is above pro's capacity.
 */
@Injectable()
export class TierTransitions {
  constructor(
    private readonly clock: Clock,
    private readonly users: UsersRepository,
    private readonly purchases: StorePurchasesRepository,
    @InjectConfig() private readonly config: { subscriptions: SubscriptionsConfig },
  ) {}

  /**
   * Derives the user's tier from their purchases after a store changed one of them;
   * `effectiveAt` is when the store says the change took effect. Undefined when the user is gone.
   */
  async recompute(manager: EntityManager, userId: number, effectiveAt: Date): Promise<Entitlement | undefined> {
    const row = await this.users.lockPremium(manager, userId);
    if (!row) return undefined;
    const now = this.clock.now();
    const next = this.best(await this.purchases.inForce(manager, userId, now), row, now);
    await this.write(manager, userId, row, next, effectiveAt);
    return next;
  }

  /**
   * An operator sets the tier by hand (local and dev, to try the tiers): `until` for
   * `pro`/`max`, null for `none`. No store purchase backs it, so no store report will
   * take it back; it ends at `until` like any lapse. False when the user does not exist.
   */
  async setByOperator(manager: EntityManager, userId: number, tier: PremiumTier, until: Date | null): Promise<boolean> {
    const row = await this.users.lockPremium(manager, userId);
    if (!row) return false;
    const next = { tier, until: tier === 'none' ? null : until, platform: null, txRef: null, productId: null };
    await this.write(manager, userId, row, next, this.clock.now());
    return true;
  }

  /**
   * A lapse no store reported: `premium_until` passed. The tier is derived again from the
   * purchases still in force, and a drop took effect at `premium_until`. False when
   * there was nothing to record.
   */
  async settleLapse(manager: EntityManager, userId: number): Promise<boolean> {
    const row = await this.users.lockPremium(manager, userId);
    const now = this.clock.now();
    if (!row || row.premium_tier === 'none' || activeTier(toTierInput(row), now) !== 'none') return false;
    const next = this.best(await this.purchases.inForce(manager, userId, now), row, now);
    await this.write(manager, userId, row, next, row.premium_until ?? now);
    return true;
  }

  /** The highest tier among the purchases in force (and an operator's tier in force), until its latest end. */
  private best(purchases: PurchaseInForce[], row: PremiumColumns, now: Date): Entitlement {
    const candidates: Entitlement[] = [];
    const refuseSandbox = this.config.subscriptions.sandboxPurchases === 'refuse';
    for (const purchase of purchases) {
      const tier = purchase.product_id ? this.config.subscriptions.products[purchase.product_id] : undefined;
      if (!tier || (refuseSandbox && purchase.environment === 'sandbox')) continue;
      candidates.push({
        tier,
        until: purchase.entitled_until,
        platform: purchase.platform,
        txRef: purchase.store_ref,
        productId: purchase.product_id,
      });
    }
    if (row.premium_platform === null && activeTier(toTierInput(row), now) !== 'none') {
      candidates.push({ tier: row.premium_tier, until: row.premium_until, platform: null, txRef: null, productId: null });
    }
    let best = NO_ENTITLEMENT;
    for (const candidate of candidates) {
      const rank = TIER_RANK[candidate.tier] - TIER_RANK[best.tier];
      if (rank > 0 || (rank === 0 && candidate.until!.getTime() > (best.until?.getTime() ?? 0))) best = candidate;
    }
    return best;
  }

  private async write(manager: EntityManager, userId: number, row: PremiumColumns, next: Entitlement, effectiveAt: Date): Promise<void> {
    const now = this.clock.now();
    // Stored as the tier in force, so an entitlement that has already ended is never
    // kept as a tier that the lapse sweep would record as a second drop later.
    const tierAfter = activeTier({ premiumTier: next.tier, premiumUntil: next.until }, now);
    const before = TIER_RANK[row.premium_tier];
    const after = TIER_RANK[tierAfter];
    let downgradedAt = row.downgraded_at;
    let downgradedFrom = row.downgraded_from;
    if (after < before) {
      const lapsedAt = row.premium_until !== null && row.premium_until <= now ? row.premium_until : now;
      downgradedAt = new Date(Math.min(lapsedAt.getTime(), effectiveAt.getTime(), now.getTime()));
      const heldBefore = row.premium_tier as Exclude<PremiumTier, 'none'>;
      downgradedFrom = downgradedFrom !== null && TIER_RANK[downgradedFrom] > before ? downgradedFrom : heldBefore;
    } else if (after > before && (downgradedFrom === null || after >= TIER_RANK[downgradedFrom])) {
      downgradedAt = null;
      downgradedFrom = null;
    }
    await this.users.writePremium(manager, userId, {
      tier: tierAfter,
      until: next.until,
      platform: next.platform,
      txRef: next.txRef,
      downgradedAt,
      downgradedFrom: downgradedAt === null ? null : downgradedFrom,
    });
  }
}

function toTierInput(row: PremiumColumns): { premiumTier: PremiumTier; premiumUntil: Date | null } {
  return { premiumTier: row.premium_tier, premiumUntil: row.premium_until };
}
