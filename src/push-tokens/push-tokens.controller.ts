import { Body, Controller, Delete, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { RegisterPushTokenRequest, UnregisterPushTokenRequest } from './dto/push-token.dto';
import { PushTokensRepository } from './push-tokens.repository';
import { ApiErrors } from '../common/http/api-errors';

@ApiTags('push')
@Authenticated()
@Controller('api/v1/push')
export class PushTokensController {
  constructor(private readonly pushTokens: PushTokensRepository) {}

  @Post('fcm-token')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: "Register the device's FCM token for the caller",
    description:
      'An upsert on the token: a token registered by another user moves to the caller. The device then receives a ' +
      'notification for each new filing of a watched company, or one digest after quiet hours: the `PushNotification` ' +
      'schema, its `data` the `PushData` schema (`{ rcept_no, corp_code }`), described under the `push` tag.',
  })
  @ApiNoContentResponse({ description: 'Registered or updated' })
  @ApiErrors({
    VALIDATION_FAILED: 'fcm_token missing, empty, not a string, too long or not printable ASCII; platform not ios or android',
  })
  async register(@CurrentUser() user: AuthenticatedUser, @Body() body: RegisterPushTokenRequest): Promise<void> {
    await this.pushTokens.register(user.userId, body.fcm_token, body.platform);
  }

  @Delete('fcm-token')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: "Remove one of the caller's FCM tokens",
    description: "Also 204 when the token is unknown or belongs to another user; only the caller's own token is deleted.",
  })
  @ApiNoContentResponse({ description: 'The token no longer belongs to the caller' })
  @ApiErrors({ VALIDATION_FAILED: 'fcm_token missing or malformed' })
  async unregister(@CurrentUser() user: AuthenticatedUser, @Body() body: UnregisterPushTokenRequest): Promise<void> {
    await this.pushTokens.unregister(user.userId, body.fcm_token);
  }
}
