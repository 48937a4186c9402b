import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { InjectConfig } from '../config/config.module';
import type { VerifySubscriptionRequest, VerifySubscriptionResponse } from './dto/subscription.dto';
import { AppStoreClient, AppStoreInvalidError } from './stores/app-store.client';
import { GooglePlayClient, PlayPurchaseInvalidError, playState } from './stores/google-play.client';
import { type LockedPurchase, StorePurchasesRepository } from './store-purchases.repository';
import type { StoreState } from './stores/store-state';
import type { SubscriptionsConfig } from './subscriptions.config';
import { type Entitlement, type StorePlatform, TierTransitions } from './tier-transitions';

/**
 * POST /api/v1/subscription/verify, and the part of the store notifications that
 * records a store state. The store is read first; nothing is written before it answered
 * and the product is known, so every error leaves the account as it was.
 *
 * Each purchase keeps the store's latest word on it (a report older than the stored one
 * changes nothing), and the user's tier is derived from all of their purchases in force
 * (TierTransitions), so the answer is the user's entitlement, not the one purchase's.
 *
 * Binding rule: one store purchase (Android purchase token, iOS original transaction)
 * entitles one user, the one who verified it last. That is the stores' own model: a
 * purchase follows the store account, which may sign in to another of our accounts.
 * A Play plan change issues a new purchase token that names the old one
 * (linkedPurchaseToken): the new purchase belongs to the old one's user and replaces it.
 */
@Injectable()
export class SubscriptionsService {
  private readonly logger = new Logger(SubscriptionsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: { subscriptions: SubscriptionsConfig },
    private readonly clock: Clock,
    private readonly transitions: TierTransitions,
    private readonly purchases: StorePurchasesRepository,
    @Inject(GooglePlayClient) private readonly play: GooglePlayClient,
    @Inject(AppStoreClient) private readonly appStore: AppStoreClient,
  ) {}

  async verify(userId: number, request: VerifySubscriptionRequest): Promise<VerifySubscriptionResponse> {
    const { storeRef, state } = request.platform === 'ios' ? await this.readAppStore(request.token) : await this.readPlay(request.token);
    const tier = this.tierOf(state.productId);
    if (!tier || !this.config.subscriptions.products[request.product_id]) {
      throw new AppError('UNKNOWN_PRODUCT', 'The subscription is for a product this service does not sell');
    }
    if (state.environment === 'sandbox' && this.config.subscriptions.sandboxPurchases === 'refuse') {
      throw new AppError('SUBSCRIPTION_INVALID', 'Sandbox purchases do not grant a tier on this deployment');
    }
    if (state.productId !== request.product_id) {
      // A plan change inside the group: the store's product decides.
      this.logger.log(`verify: request product ${request.product_id}, store product ${state.productId}`);
    }
    const entitlement = await this.dataSource.transaction((manager) => this.bind(manager, userId, request.platform, storeRef, state));
    const now = this.clock.now();
    if (!entitlement?.until || entitlement.tier === 'none' || entitlement.until <= now) return { active: false, tier: 'none' };
    return {
      active: true,
      tier: entitlement.tier,
      premium_until: entitlement.until.toISOString(),
      product_id: entitlement.productId ?? this.productOf(entitlement.tier),
    };
  }

  /**
   * A store notification's state: recorded on the purchase unless older than the stored
   * one ('stale'), and the tier of the user it is bound to derived again. A purchase no
   * user has verified yet is kept (user_id NULL) for a later verify.
   */
  async applyNotification(
    manager: EntityManager,
    platform: StorePlatform,
    storeRef: string,
    state: StoreState,
  ): Promise<'applied' | 'stale'> {
    const purchase = await this.purchases.lock(manager, platform, storeRef);
    if (isOlder(state, purchase)) return 'stale';
    await this.purchases.recordState(manager, purchase.id, purchase.user_id, state, this.clock.now());
    let owner = purchase.user_id;
    const affected = new Map<number, Date>();
    if (state.linkedStoreRef) {
      const replaced = await this.purchases.supersede(manager, platform, state.linkedStoreRef, state.signedAt);
      if (replaced && replaced.user_id !== null) {
        if (owner === null) {
          owner = replaced.user_id;
          await this.purchases.bind(manager, purchase.id, owner);
        }
        if (replaced.user_id !== owner) affected.set(replaced.user_id, state.effectiveAt);
      }
    }
    if (owner !== null) affected.set(owner, state.effectiveAt);
    await this.recomputeAll(manager, affected);
    return 'applied';
  }

  private tierOf(productId: string | null): 'pro' | 'max' | undefined {
    return productId ? this.config.subscriptions.products[productId] : undefined;
  }

  private productOf(tier: 'pro' | 'max'): string | undefined {
    return Object.entries(this.config.subscriptions.products).find(([, productTier]) => productTier === tier)?.[0];
  }

  private async readPlay(token: string): Promise<{ storeRef: string; state: StoreState }> {
    if (!this.play.configured) throw new AppError('STORE_NOT_CONFIGURED', 'Android subscription verification is not configured');
    try {
      const subscription = await this.play.getSubscription(token);
      return { storeRef: token, state: playState(subscription, this.clock.now()) };
    } catch (error) {
      if (error instanceof PlayPurchaseInvalidError) {
        throw new AppError('SUBSCRIPTION_INVALID', 'The store does not know this purchase');
      }
      this.logger.warn({ err: error }, 'Google Play unavailable during verify');
      throw new AppError('STORE_UNAVAILABLE', 'The store could not be reached; try again later');
    }
  }

  private async readAppStore(signedTransaction: string): Promise<{ storeRef: string; state: StoreState }> {
    if (!this.appStore.configured) throw new AppError('STORE_NOT_CONFIGURED', 'iOS subscription verification is not configured');
    try {
      const { originalTransactionId, environment } = await this.appStore.originalTransactionOf(signedTransaction);
      return {
        storeRef: originalTransactionId,
        state: await this.appStore.currentState(originalTransactionId, environment, this.clock.now()),
      };
    } catch (error) {
      if (error instanceof AppStoreInvalidError) {
        throw new AppError('SUBSCRIPTION_INVALID', 'The transaction is not a valid purchase of this app');
      }
      this.logger.warn({ err: error }, 'App Store unavailable during verify');
      throw new AppError('STORE_UNAVAILABLE', 'The store could not be reached; try again later');
    }
  }

  /**
   * Records the purchase under the caller and derives the tiers it touches: the caller's,
   * the previous holder's when it moves, and the holder of a purchase it replaced. The
   * purchase row is locked first (inserted when new), so two verifies of one purchase
   * take turns and the second sees the first's binding.
   */
  private async bind(
    manager: EntityManager,
    userId: number,
    platform: StorePlatform,
    storeRef: string,
    state: StoreState,
  ): Promise<Entitlement | undefined> {
    const purchase = await this.purchases.lock(manager, platform, storeRef);
    const affected = new Map<number, Date>();
    if (isOlder(state, purchase)) {
      await this.purchases.bind(manager, purchase.id, userId);
    } else {
      await this.purchases.recordState(manager, purchase.id, userId, state, this.clock.now());
      if (state.linkedStoreRef) {
        const replaced = await this.purchases.supersede(manager, platform, state.linkedStoreRef, state.signedAt);
        if (replaced && replaced.user_id !== null && replaced.user_id !== userId) affected.set(replaced.user_id, state.effectiveAt);
      }
    }
    // The purchase moved away from its previous holder, now.
    if (purchase.user_id !== null && purchase.user_id !== userId) affected.set(purchase.user_id, this.clock.now());
    // A plan change the store reported before the app verified the old purchase.
    await this.purchases.adoptReplacements(manager, platform, storeRef, userId);
    affected.set(userId, state.effectiveAt);
    return (await this.recomputeAll(manager, affected)).get(userId);
  }

  /** Derives each user's tier again, in user id order so concurrent transactions lock users alike. */
  private async recomputeAll(manager: EntityManager, users: Map<number, Date>): Promise<Map<number, Entitlement | undefined>> {
    const results = new Map<number, Entitlement | undefined>();
    for (const [userId, effectiveAt] of [...users].sort(([a], [b]) => a - b)) {
      results.set(userId, await this.transitions.recompute(manager, userId, effectiveAt));
    }
    return results;
  }
}

/** A report older than the state stored for the purchase: stores redeliver late and out of order. */
function isOlder(state: StoreState, purchase: LockedPurchase): boolean {
  return purchase.store_signed_at !== null && state.signedAt.getTime() < purchase.store_signed_at.getTime();
}
