import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import type { VerifySubscriptionRequest, VerifySubscriptionResponse } from './dto/subscription.dto';
import { AppStoreClient, AppStoreInvalidError } from './stores/app-store.client';
import { GooglePlayClient, PlayPurchaseInvalidError, playSubscriptionServes } from './stores/google-play.client';
import { StorePurchases } from './store-purchases';
import type { StoreState } from './stores/store-state';
import { type StorePlatform, TierTransitions } from './tier-transitions';

/**
 * POST /api/v1/subscription/verify, and the part of the store notifications that
 * applies a store state. The store is read first; nothing is written before it answered
 * and the product is known, so every error leaves the account as it was.
 *
 * Binding rule: one store purchase (Android purchase token, iOS original transaction)
 * entitles one user, the one who verified it last. That is the stores' own model: a
 * purchase follows the store account, which may sign in to another of our accounts.
 * Moving it withdraws the previous user's tier when it came from that purchase.
 */
@Injectable()
export class SubscriptionsService {
  private readonly logger = new Logger(SubscriptionsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly transitions: TierTransitions,
    private readonly purchases: StorePurchases,
    @Inject(GooglePlayClient) private readonly play: GooglePlayClient,
    @Inject(AppStoreClient) private readonly appStore: AppStoreClient,
  ) {}

  async verify(userId: number, request: VerifySubscriptionRequest): Promise<VerifySubscriptionResponse> {
    const { storeRef, state } =
      request.platform === 'ios' ? await this.readAppStore(request.token) : await this.readPlay(request.token);
    const tier = this.tierOf(state.productId);
    if (!tier || !this.config.subscriptions.products[request.product_id]) {
      throw new AppError('UNKNOWN_PRODUCT', 'The subscription is for a product this service does not sell');
    }
    if (state.productId !== request.product_id) {
      // A plan change inside the group: the store's product decides.
      this.logger.log(`verify: request product ${request.product_id}, store product ${state.productId}`);
    }
    await this.dataSource.transaction((manager) => this.bind(manager, userId, request.platform, storeRef, state, tier));
    if (!state.serving) return { active: false, tier: 'none' };
    return { active: true, tier, premium_until: state.expiryTime!.toISOString(), product_id: state.productId! };
  }

  /**
   * A store notification's state: recorded on the purchase and applied to the user it is
   * bound to. A purchase no user has verified yet is kept (user_id NULL) for a later verify.
   */
  async applyNotification(manager: EntityManager, platform: StorePlatform, storeRef: string, state: StoreState): Promise<void> {
    const purchase = await this.purchases.lock(manager, platform, storeRef);
    await this.purchases.recordState(manager, purchase.id, purchase.user_id, state, this.clock.now());
    if (purchase.user_id === null) return;
    await this.applyTo(manager, purchase.user_id, platform, storeRef, state, this.tierOf(state.productId));
  }

  private tierOf(productId: string | null): 'pro' | 'max' | undefined {
    return productId ? this.config.subscriptions.products[productId] : undefined;
  }

  private async readPlay(token: string): Promise<{ storeRef: string; state: StoreState }> {
    if (!this.play.configured) throw new AppError('STORE_NOT_CONFIGURED', 'Android subscription verification is not configured');
    try {
      const subscription = await this.play.getSubscription(token);
      return { storeRef: token, state: { ...subscription, serving: playSubscriptionServes(subscription, this.clock.now()) } };
    } catch (error) {
      if (error instanceof PlayPurchaseInvalidError) {
        throw new AppError('SUBSCRIPTION_INVALID', 'The store does not know this purchase');
      }
      this.logger.warn(`Play verification failed: ${(error as Error).message}`);
      throw new AppError('STORE_UNAVAILABLE', 'The store could not be reached; try again later');
    }
  }

  private async readAppStore(signedTransaction: string): Promise<{ storeRef: string; state: StoreState }> {
    if (!this.appStore.configured) throw new AppError('STORE_NOT_CONFIGURED', 'iOS subscription verification is not configured');
    try {
      const storeRef = await this.appStore.originalTransactionIdOf(signedTransaction);
      return { storeRef, state: await this.appStore.currentState(storeRef, this.clock.now()) };
    } catch (error) {
      if (error instanceof AppStoreInvalidError) {
        throw new AppError('SUBSCRIPTION_INVALID', 'The transaction is not a valid purchase of this app');
      }
      this.logger.warn(`App Store verification failed: ${(error as Error).message}`);
      throw new AppError('STORE_UNAVAILABLE', 'The store could not be reached; try again later');
    }
  }

  /**
   * Records the purchase under the caller and applies it. The purchase row is locked
   * first (inserted when new), so two verifies of one purchase take turns and the
   * second sees the first's binding.
   */
  private async bind(
    manager: EntityManager,
    userId: number,
    platform: StorePlatform,
    storeRef: string,
    state: StoreState,
    tier: 'pro' | 'max',
  ): Promise<void> {
    const purchase = await this.purchases.lock(manager, platform, storeRef);
    await this.purchases.recordState(manager, purchase.id, userId, state, this.clock.now());
    if (purchase.user_id !== null && purchase.user_id !== userId) {
      await this.transitions.withdraw(manager, purchase.user_id, storeRef);
    }
    await this.applyTo(manager, userId, platform, storeRef, state, tier);
  }

  /** Grants while the store says it serves a product we sell, else withdraws what came from it. */
  private async applyTo(
    manager: EntityManager,
    userId: number,
    platform: StorePlatform,
    storeRef: string,
    state: StoreState,
    tier: 'pro' | 'max' | undefined,
  ): Promise<void> {
    if (tier && state.serving && state.expiryTime) {
      await this.transitions.grant(manager, userId, { tier, until: state.expiryTime, platform, txRef: storeRef });
    } else {
      await this.transitions.withdraw(manager, userId, storeRef);
    }
  }
}
