import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { InjectConfig } from '../config/config.module';
import { StoreNotificationsRepository } from './store-notifications.repository';
import { GooglePlayClient, type PlaySubscription, playState } from './stores/google-play.client';
import type { StoreState } from './stores/store-state';
import type { SubscriptionsConfig } from './subscriptions.config';
import { SubscriptionsService } from './subscriptions.service';

/** The Pub/Sub push envelope. */
export interface PubSubPush {
  message?: { data?: unknown; messageId?: unknown; message_id?: unknown };
  subscription?: unknown;
}

/** What `message.data` decodes to (Real-time developer notifications). */
interface DeveloperNotification {
  packageName?: unknown;
  eventTimeMillis?: unknown;
  subscriptionNotification?: { notificationType?: unknown; purchaseToken?: unknown; subscriptionId?: unknown };
  voidedPurchaseNotification?: { purchaseToken?: unknown };
  testNotification?: unknown;
}

export type PlayNotificationOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored' | 'rejected';

/** A message that no redelivery can make processable. */
class PoisonMessage extends Error {}

/**
 * POST /internal/store-b-notifications after authentication. The purchase is re-read
 * from the store first (outside any transaction: a network call must not hold locks);
 * then one transaction records the messageId under its unique key and applies the
 * state. A repeat loses the insert and changes nothing; a failure rolls both back, so
 * Pub/Sub redelivers and the message is applied then.
 *
 * Pub/Sub redelivers any non-2xx for days, so a message that can never be processed (no
 * messageId, `data` that is not base64 JSON, a purchase token that is not a string) is
 * acknowledged as 'rejected' with a warning; a failure that may pass (the store or the
 * database unavailable) is not.
 */
@Injectable()
export class PlayNotificationsService {
  private readonly logger = new Logger(PlayNotificationsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: { subscriptions: SubscriptionsConfig },
    @Inject(GooglePlayClient) private readonly play: GooglePlayClient,
    private readonly subscriptions: SubscriptionsService,
    private readonly clock: Clock,
    private readonly notifications: StoreNotificationsRepository,
  ) {}

  async handle(push: PubSubPush): Promise<PlayNotificationOutcome> {
    let message: { messageId: string; notification: DeveloperNotification; purchaseToken: string | undefined };
    try {
      message = parseMessage(push);
    } catch (error) {
      if (!(error instanceof PoisonMessage)) throw error;
      this.logger.warn({ err: error }, 'Play notification acknowledged unprocessed; Pub/Sub would redeliver it forever');
      return 'rejected';
    }
    const { messageId, notification, purchaseToken } = message;
    const forOtherApp = notification.packageName !== this.config.subscriptions.googlePlay.packageName;

    let state: StoreState | null = null;
    if (purchaseToken && !forOtherApp) {
      if (await this.notifications.seen('android', messageId)) return 'duplicate';
      const subscription = await this.reRead(purchaseToken);
      // The re-read is the store's word, a refund included: a voided order of an earlier
      // period leaves the period in force, a revoked subscription reads as expired.
      state = playState(subscription, this.clock.now(), eventTimeOf(notification));
    }

    return this.dataSource.transaction(async (manager) => {
      if (!(await this.notifications.record(manager, 'android', messageId))) return 'duplicate';
      if (!state || !purchaseToken) {
        // Test notifications, one-time products, other apps: acknowledged, nothing to apply.
        this.logger.log(`Play notification ${messageId} acknowledged without a subscription to apply`);
        return 'ignored';
      }
      return this.subscriptions.applyNotification(manager, 'android', purchaseToken, state);
    });
  }

  private async reRead(purchaseToken: string): Promise<PlaySubscription> {
    if (!this.play.configured) throw new AppError('STORE_NOT_CONFIGURED', 'Android subscriptions are not configured');
    try {
      return await this.play.getSubscription(purchaseToken);
    } catch (error) {
      // Invalid tokens too: a fresh purchase may not be readable yet, and a retry is cheap.
      this.logger.warn({ err: error }, 'Google Play re-read failed');
      throw new AppError('STORE_UNAVAILABLE', 'The store could not be read; redeliver later');
    }
  }
}

function parseMessage(push: PubSubPush): { messageId: string; notification: DeveloperNotification; purchaseToken: string | undefined } {
  const messageId = push.message?.messageId ?? push.message?.message_id;
  if (typeof messageId !== 'string' || messageId === '' || messageId.length > 255) {
    throw new PoisonMessage('message.messageId missing or not a string of at most 255 characters');
  }
  const notification = decodeData(push.message?.data, messageId);
  const token = notification.subscriptionNotification?.purchaseToken ?? notification.voidedPurchaseNotification?.purchaseToken;
  if (token !== undefined && (typeof token !== 'string' || token === '' || token.length > 512)) {
    throw new PoisonMessage(`message ${messageId}: purchaseToken is not a string of 1-512 characters`);
  }
  return { messageId, notification, purchaseToken: token };
}

function decodeData(data: unknown, messageId: string): DeveloperNotification {
  if (typeof data !== 'string' || data === '') throw new PoisonMessage(`message ${messageId}: message.data missing`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
  } catch {
    throw new PoisonMessage(`message ${messageId}: message.data is not base64-encoded JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new PoisonMessage(`message ${messageId}: message.data is not a JSON object`);
  }
  return parsed as DeveloperNotification;
}

/** When the reported change happened (eventTimeMillis is a string of milliseconds). */
function eventTimeOf(notification: DeveloperNotification): Date | undefined {
  const millis = Number(notification.eventTimeMillis);
  return Number.isFinite(millis) && millis > 0 ? new Date(millis) : undefined;
}
