import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { VerifySubscriptionRequest, VerifySubscriptionResponse } from './dto/subscription.dto';
import { SubscriptionsService } from './subscriptions.service';
import { ApiErrors } from '../common/http/api-errors';

@ApiTags('subscription')
@Authenticated()
@Controller('api/v1/subscription')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Post('verify')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Verify a store purchase with the store and apply the tier it grants' })
  @ApiOkResponse({ type: VerifySubscriptionResponse })
  @ApiErrors({
    VALIDATION_FAILED: 'platform outside ios/android, missing token or product_id',
    SUBSCRIPTION_INVALID: 'the store does not know the purchase, or it is not active',
    UNKNOWN_PRODUCT: 'a valid purchase of a product not sold here',
    STORE_NOT_CONFIGURED: "the platform's store is not configured; nothing granted",
    STORE_UNAVAILABLE: 'the store could not be reached; nothing granted',
  })
  verify(@CurrentUser() user: AuthenticatedUser, @Body() body: VerifySubscriptionRequest): Promise<VerifySubscriptionResponse> {
    return this.subscriptions.verify(user.userId, body);
  }
}
