import { Body, Controller, Headers, HttpCode, HttpStatus, Logger, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AppError } from '../common/errors/app-error';
import { ApiErrors } from '../common/http/api-errors';
import { Metrics } from '../metrics/metrics';
import { AppStoreNotificationBody, PubSubPushBody, StoreNotificationAnswer } from './dto/store-notification.dto';
import { AppStoreNotificationsService } from './app-store-notifications.service';
import { type PubSubPush, PlayNotificationsService } from './play-notifications.service';
import { PubSubPushAuth } from './stores/pubsub-push-auth';

/** Receivers the stores call; no JWT. A non-2xx answer makes the store deliver again. */
@ApiTags('store callbacks')
@Controller('internal')
export class StoreNotificationsController {
  private readonly logger = new Logger(StoreNotificationsController.name);

  constructor(
    private readonly pushAuth: PubSubPushAuth,
    private readonly playNotifications: PlayNotificationsService,
    private readonly appStoreNotifications: AppStoreNotificationsService,
    private readonly metrics: Metrics,
  ) {}

  /** App Store Server Notifications V2: `{ signedPayload }`. */
  @Post('store-a-notifications')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'App Store Server Notifications V2 (called by Apple; register this URL in App Store Connect)',
    description:
      "No JWT: the payload's signature is the authentication, in the payload's own environment (production or sandbox). " +
      "The signed transaction and renewal in it update the purchase, unless the purchase's stored state is newer " +
      "(`stale`); one that would withdraw it is confirmed with the App Store first. The user's tier is derived from all " +
      'of their purchases; each notification is applied once. A non-2xx answer makes Apple deliver again.',
  })
  @ApiBody({ type: AppStoreNotificationBody })
  @ApiOkResponse({ type: StoreNotificationAnswer })
  @ApiErrors({
    VALIDATION_FAILED: 'signedPayload missing, or its notificationUUID',
    UNAUTHORIZED: 'the signed payload did not verify',
    STORE_NOT_CONFIGURED: 'iOS verification is not configured (Apple retries)',
    STORE_UNAVAILABLE: "the App Store could not confirm a withdrawal, or a certificate's revocation could not be checked (Apple retries)",
  })
  async appStoreNotification(@Body() body: { signedPayload?: unknown }): Promise<{ status: string }> {
    const status = await this.appStoreNotifications.handle(body ?? {});
    this.metrics.storeNotifications.inc({ store: 'app_store', outcome: status });
    return { status };
  }

  @Post('store-b-notifications')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Google Play Real-time developer notifications through a Pub/Sub push subscription (called by Google)',
    description:
      'Authenticated by the push OIDC token (GOOGLE_PUBSUB_AUDIENCE and GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL) or by ' +
      '`?token=` (GOOGLE_PUBSUB_SHARED_SECRET). The purchase is re-read from Google Play and the tier updated; each ' +
      'message id is applied once. A non-2xx answer makes Pub/Sub deliver again, so a message that can never be ' +
      'processed (no messageId, data that is not base64 JSON) is acknowledged as `rejected`.',
  })
  // Either one: `security: [{ pubsub-oidc: [] }, { pubsub-token: [] }]` (schemes in src/common/http/swagger.ts).
  @ApiSecurity('pubsub-oidc')
  @ApiSecurity('pubsub-token')
  @ApiBody({ type: PubSubPushBody })
  @ApiOkResponse({ type: StoreNotificationAnswer })
  @ApiErrors({
    UNAUTHORIZED: 'neither a valid push token nor the shared secret',
    STORE_NOT_CONFIGURED: 'Play notifications or Android verification are not configured',
    STORE_UNAVAILABLE: "Google Play could not be read, or Google's OIDC certificates fetched (Pub/Sub redelivers)",
  })
  async playNotification(
    @Headers('authorization') authorization: string | undefined,
    @Query('token') queryToken: string | undefined,
    @Body() body: PubSubPush,
  ): Promise<{ status: string }> {
    const failure = await this.pushAuth.check(authorization, typeof queryToken === 'string' ? queryToken : undefined);
    if (failure === 'not-configured') throw new AppError('STORE_NOT_CONFIGURED', 'Play notifications are not configured');
    if (failure === 'rejected') throw new AppError('UNAUTHORIZED', 'The push is not authenticated');
    if (failure === 'unavailable') {
      this.logger.warn("Google's OIDC certificates could not be fetched: the push is answered 503 and Pub/Sub redelivers it");
      throw new AppError('STORE_UNAVAILABLE', "Google's signing keys could not be fetched; redeliver later");
    }
    const status = await this.playNotifications.handle(body ?? {});
    this.metrics.storeNotifications.inc({ store: 'google_play', outcome: status });
    return { status };
  }
}
