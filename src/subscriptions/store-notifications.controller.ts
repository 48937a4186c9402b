import { Body, Controller, Headers, HttpCode, HttpStatus, Post, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AppError } from '../common/errors/app-error';
import { AppStoreNotificationsService } from './app-store-notifications.service';
import { type PubSubPush, PlayNotificationsService } from './play-notifications.service';
import { PubSubPushAuth } from './stores/pubsub-push-auth';

/** Receivers the stores call; no JWT. A non-2xx answer makes the store deliver again. */
@ApiExcludeController()
@Controller('internal')
export class StoreNotificationsController {
  constructor(
    private readonly pushAuth: PubSubPushAuth,
    private readonly playNotifications: PlayNotificationsService,
    private readonly appStoreNotifications: AppStoreNotificationsService,
  ) {}

  /** App Store Server Notifications V2: `{ signedPayload }`. */
  @Post('store-a-notifications')
  @HttpCode(HttpStatus.OK)
  async appStoreNotification(@Body() body: { signedPayload?: unknown }): Promise<{ status: string }> {
    return { status: await this.appStoreNotifications.handle(body ?? {}) };
  }

  @Post('store-b-notifications')
  @HttpCode(HttpStatus.OK)
  async playNotification(
    @Headers('authorization') authorization: string | undefined,
    @Query('token') queryToken: string | undefined,
    @Body() body: PubSubPush,
  ): Promise<{ status: string }> {
    const failure = await this.pushAuth.check(authorization, typeof queryToken === 'string' ? queryToken : undefined);
    if (failure === 'not-configured') throw new AppError('STORE_NOT_CONFIGURED', 'Play notifications are not configured');
    if (failure === 'rejected') throw new AppError('UNAUTHORIZED', 'The push is not authenticated');
    return { status: await this.playNotifications.handle(body ?? {}) };
  }
}
