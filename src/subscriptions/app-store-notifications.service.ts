import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { AppStoreClient, AppStoreInvalidError, appleState } from './stores/app-store.client';
import { StoreNotifications } from './store-notifications';
import type { StoreState } from './stores/store-state';
import { SubscriptionsService } from './subscriptions.service';

export type AppStoreNotificationOutcome = 'applied' | 'duplicate' | 'ignored';

/** Types that carry the subscription's state in their signed transaction. */
const STATE_TYPES = new Set(['SUBSCRIBED', 'DID_RENEW', 'DID_CHANGE_RENEWAL_PREF', 'DID_FAIL_TO_RENEW']);
/** Types after which the subscription no longer serves, whatever the dates say. */
const ENDING_TYPES = new Set(['EXPIRED', 'GRACE_PERIOD_EXPIRED', 'REFUND', 'REVOKE']);

/**
 * POST /internal/store-a-notifications: App Store Server Notifications V2. The signed
 * payload, and the transaction and renewal info inside it, are verified with the same
 * SignedDataVerifier as verify (root certificates, bundle id, app id, environment).
 * One transaction records notificationUUID under its unique key and applies the state;
 * a repeat is acknowledged and changes nothing.
 */
@Injectable()
export class AppStoreNotificationsService {
  private readonly logger = new Logger(AppStoreNotificationsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AppStoreClient) private readonly appStore: AppStoreClient,
    private readonly subscriptions: SubscriptionsService,
    private readonly clock: Clock,
    private readonly notifications: StoreNotifications,
  ) {}

  async handle(body: { signedPayload?: unknown }): Promise<AppStoreNotificationOutcome> {
    if (!this.appStore.configured) throw new AppError('STORE_NOT_CONFIGURED', 'iOS notifications are not configured');
    if (typeof body?.signedPayload !== 'string' || body.signedPayload === '') {
      throw new AppError('VALIDATION_FAILED', 'signedPayload is required');
    }
    try {
      const notification = await this.appStore.verifyNotification(body.signedPayload);
      const uuid = notification.notificationUUID;
      if (!uuid) throw new AppError('VALIDATION_FAILED', 'notificationUUID is missing');
      const type = String(notification.notificationType ?? '');
      const signedTransaction = notification.data?.signedTransactionInfo;
      let target: { storeRef: string; state: StoreState } | null = null;
      if ((STATE_TYPES.has(type) || ENDING_TYPES.has(type)) && signedTransaction) {
        const transaction = await this.appStore.verifyTransaction(signedTransaction);
        const signedRenewal = notification.data?.signedRenewalInfo;
        const renewal = signedRenewal ? await this.appStore.verifyRenewalInfo(signedRenewal) : undefined;
        const inGrace = type === 'DID_FAIL_TO_RENEW' && notification.subtype === 'GRACE_PERIOD';
        const state = appleState(type, transaction, renewal, inGrace, this.clock.now());
        if (ENDING_TYPES.has(type)) state.serving = false;
        if (transaction.originalTransactionId) target = { storeRef: transaction.originalTransactionId, state };
      }
      return await this.dataSource.transaction(async (manager) => {
        if (!(await this.notifications.record(manager, 'ios', uuid))) return 'duplicate';
        if (!target) {
          this.logger.log(`App Store notification ${uuid} (${type}) acknowledged without a state to apply`);
          return 'ignored';
        }
        await this.subscriptions.applyNotification(manager, 'ios', target.storeRef, target.state);
        return 'applied';
      });
    } catch (error) {
      if (error instanceof AppStoreInvalidError) throw new AppError('UNAUTHORIZED', 'The signed payload did not verify');
      throw error;
    }
  }
}
