import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { StoreNotifications } from './store-notifications';
import { GooglePlayClient, type PlaySubscription, playSubscriptionServes } from './stores/google-play.client';
import { SubscriptionsService } from './subscriptions.service';

/** The Pub/Sub push envelope. */
export interface PubSubPush {
  message?: { data?: unknown; messageId?: unknown; message_id?: unknown };
  subscription?: unknown;
}

/** What `message.data` decodes to (Real-time developer notifications). */
interface DeveloperNotification {
  packageName?: string;
  subscriptionNotification?: { notificationType?: number; purchaseToken?: string; subscriptionId?: string };
  voidedPurchaseNotification?: { purchaseToken?: string };
  testNotification?: unknown;
}

export type PlayNotificationOutcome = 'applied' | 'duplicate' | 'ignored';

/**
 * POST /internal/store-b-notifications after authentication. The purchase is re-read
 * from the store first (outside any transaction: a network call must not hold locks);
 * then one transaction records the messageId under its unique key and applies the
 * state. A repeat loses the insert and changes nothing; a failure rolls both back, so
 * Pub/Sub redelivers and the message is applied then.
 */
@Injectable()
export class PlayNotificationsService {
  private readonly logger = new Logger(PlayNotificationsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(GooglePlayClient) private readonly play: GooglePlayClient,
    private readonly subscriptions: SubscriptionsService,
    private readonly clock: Clock,
    private readonly notifications: StoreNotifications,
  ) {}

  async handle(push: PubSubPush): Promise<PlayNotificationOutcome> {
    const messageId = push.message?.messageId ?? push.message?.message_id;
    if (typeof messageId !== 'string' || messageId === '' || messageId.length > 255) {
      throw new AppError('VALIDATION_FAILED', 'message.messageId is required');
    }
    const notification = decodeData(push.message?.data);
    const purchaseToken =
      notification.subscriptionNotification?.purchaseToken ?? notification.voidedPurchaseNotification?.purchaseToken;
    const forOtherApp = notification.packageName !== this.config.subscriptions.googlePlay.packageName;

    let subscription: PlaySubscription | null = null;
    if (purchaseToken && !forOtherApp) {
      if (await this.notifications.seen('android', messageId)) return 'duplicate';
      subscription = await this.reRead(purchaseToken);
    }

    return this.dataSource.transaction(async (manager) => {
      if (!(await this.notifications.record(manager, 'android', messageId))) return 'duplicate';
      if (!subscription || !purchaseToken) {
        // Test notifications, one-time products, other apps: acknowledged, nothing to apply.
        this.logger.log(`Play notification ${messageId} acknowledged without a subscription to apply`);
        return 'ignored';
      }
      const voided = notification.voidedPurchaseNotification !== undefined;
      const serving = !voided && playSubscriptionServes(subscription, this.clock.now());
      await this.subscriptions.applyNotification(manager, 'android', purchaseToken, { ...subscription, serving });
      return 'applied';
    });
  }

  private async reRead(purchaseToken: string): Promise<PlaySubscription> {
    if (!this.play.configured) throw new AppError('STORE_NOT_CONFIGURED', 'Android subscriptions are not configured');
    try {
      return await this.play.getSubscription(purchaseToken);
    } catch (error) {
      // Invalid tokens too: a fresh purchase may not be readable yet, and a retry is cheap.
      this.logger.warn(`Play re-read failed: ${(error as Error).message}`);
      throw new AppError('STORE_UNAVAILABLE', 'The store could not be read; redeliver later');
    }
  }
}

function decodeData(data: unknown): DeveloperNotification {
  if (typeof data !== 'string' || data === '') throw new AppError('VALIDATION_FAILED', 'message.data is required');
  try {
    const parsed: unknown = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
    if (parsed === null || typeof parsed !== 'object') throw new Error('not an object');
    return parsed as DeveloperNotification;
  } catch {
    throw new AppError('VALIDATION_FAILED', 'message.data is not base64-encoded JSON');
  }
}
