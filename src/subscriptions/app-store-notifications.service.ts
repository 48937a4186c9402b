import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import type { ResponseBodyV2DecodedPayload } from '@apple/app-store-server-library';
import { AppStoreClient, AppStoreInvalidError, AppStoreUnavailableError, appleState } from './stores/app-store.client';
import { StoreNotificationsRepository } from './store-notifications.repository';
import { StorePurchasesRepository } from './store-purchases.repository';
import type { StoreEnvironment, StoreState } from './stores/store-state';
import { SubscriptionsService } from './subscriptions.service';

export type AppStoreNotificationOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored';

/** Types that carry the subscription's state in their signed transaction. */
const STATE_TYPES = new Set([
  'SUBSCRIBED',
  'DID_RENEW',
  'DID_CHANGE_RENEWAL_PREF',
  'DID_CHANGE_RENEWAL_STATUS',
  'DID_FAIL_TO_RENEW',
  'OFFER_REDEEMED',
  'RENEWAL_EXTENDED',
  'REFUND_REVERSED',
]);
/** Types after which the transaction they carry no longer serves, whatever its dates say. */
const ENDING_TYPES = new Set(['EXPIRED', 'GRACE_PERIOD_EXPIRED', 'REFUND', 'REVOKE']);

/**
 * POST /internal/store-a-notifications: App Store Server Notifications V2. The signed
 * payload, and the transaction and renewal info inside it, are verified with the same
 * SignedDataVerifier as verify, in the payload's own environment.
 *
 * Apple retries a notification for days and does not keep order, so a notification is
 * applied only when its signedDate is not older than the state stored for the purchase.
 * One that would withdraw the purchase is confirmed first with getAllSubscriptionStatuses:
 * a refund of an earlier period, or an expiry overtaken by a resubscription, leaves the
 * period in force. One transaction records notificationUUID under its unique key and
 * applies the state; a repeat is acknowledged and changes nothing.
 */
@Injectable()
export class AppStoreNotificationsService {
  private readonly logger = new Logger(AppStoreNotificationsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AppStoreClient) private readonly appStore: AppStoreClient,
    private readonly subscriptions: SubscriptionsService,
    private readonly purchases: StorePurchasesRepository,
    private readonly clock: Clock,
    private readonly notifications: StoreNotificationsRepository,
  ) {}

  async handle(body: { signedPayload?: unknown }): Promise<AppStoreNotificationOutcome> {
    if (!this.appStore.configured) throw new AppError('STORE_NOT_CONFIGURED', 'iOS notifications are not configured');
    if (typeof body?.signedPayload !== 'string' || body.signedPayload === '') {
      throw new AppError('VALIDATION_FAILED', 'signedPayload is required');
    }
    try {
      const { value: notification, environment } = await this.appStore.verifyNotification(body.signedPayload);
      const uuid = notification.notificationUUID;
      if (!uuid) throw new AppError('VALIDATION_FAILED', 'notificationUUID is missing');
      const type = String(notification.notificationType ?? '');
      const target = await this.targetOf(notification, type, environment);
      return await this.dataSource.transaction(async (manager) => {
        if (!(await this.notifications.record(manager, 'ios', uuid))) return 'duplicate';
        if (!target) {
          this.logger.log(`App Store notification ${uuid} (${type}) acknowledged without a state to apply`);
          return 'ignored';
        }
        const outcome = await this.subscriptions.applyNotification(manager, 'ios', target.storeRef, target.state);
        if (outcome === 'stale')
          this.logger.log(`App Store notification ${uuid} (${type}) is older than the purchase's state: not applied`);
        return outcome;
      });
    } catch (error) {
      if (error instanceof AppStoreInvalidError) throw new AppError('UNAUTHORIZED', 'The signed payload did not verify');
      if (error instanceof AppStoreUnavailableError) {
        this.logger.warn({ err: error }, 'App Store unavailable for a notification');
        throw new AppError('STORE_UNAVAILABLE', 'The App Store could not be reached; deliver again later');
      }
      throw error;
    }
  }

  /** The purchase and the state the notification reports, confirmed with the App Store when it withdraws. */
  private async targetOf(
    notification: ResponseBodyV2DecodedPayload,
    type: string,
    environment: StoreEnvironment,
  ): Promise<{ storeRef: string; state: StoreState } | null> {
    const signedTransaction = notification.data?.signedTransactionInfo;
    if (!(STATE_TYPES.has(type) || ENDING_TYPES.has(type)) || !signedTransaction) return null;
    const transaction = await this.appStore.verifyTransaction(environment, signedTransaction);
    const storeRef = transaction.originalTransactionId;
    if (!storeRef) return null;
    const signedRenewal = notification.data?.signedRenewalInfo;
    const renewal = signedRenewal ? await this.appStore.verifyRenewalInfo(environment, signedRenewal) : undefined;
    // A grace period's end is the renewal info's; GRACE_PERIOD_EXPIRED is dated by it too.
    const inGrace = (type === 'DID_FAIL_TO_RENEW' && notification.subtype === 'GRACE_PERIOD') || type === 'GRACE_PERIOD_EXPIRED';
    const now = this.clock.now();
    const ended = ENDING_TYPES.has(type);
    const state = appleState(type, transaction, renewal, { inGrace, ended, environment, now, signedDate: notification.signedDate });
    if (state.serving) return { storeRef, state };

    // Older than what is stored: it will not be applied, so there is nothing to confirm.
    const storedAt = await this.purchases.storedSignedAt('ios', storeRef);
    if (storedAt && state.signedAt < storedAt) return { storeRef, state };
    try {
      const current = await this.appStore.currentState(storeRef, environment, now);
      if (!current.serving) return { storeRef, state };
      this.logger.log(`App Store ${type} for ${storeRef} not confirmed: transaction ${current.transactionId} still serves`);
      const signedAt = new Date(Math.max(current.signedAt.getTime(), state.signedAt.getTime()));
      return { storeRef, state: { ...current, signedAt } };
    } catch (error) {
      // Apple does not know the subscription: the signed notification is the only word on it.
      if (error instanceof AppStoreInvalidError) return { storeRef, state };
      throw error;
    }
  }
}
