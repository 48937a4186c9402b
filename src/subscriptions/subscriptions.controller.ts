import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPaymentRequiredResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { ErrorBody } from '../common/errors/error-body';
import { VerifySubscriptionRequest, VerifySubscriptionResponse } from './dto/subscription.dto';
import { SubscriptionsService } from './subscriptions.service';

@ApiTags('subscription')
@Authenticated()
@Controller('api/v1/subscription')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Post('verify')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Verify a store purchase with the store and apply the tier it grants' })
  @ApiOkResponse({ type: VerifySubscriptionResponse })
  @ApiBadRequestResponse({ type: ErrorBody, description: 'platform outside ios/android, missing token or product_id' })
  @ApiPaymentRequiredResponse({ type: ErrorBody, description: 'SUBSCRIPTION_INVALID: the store does not know the purchase' })
  @ApiConflictResponse({ type: ErrorBody, description: 'UNKNOWN_PRODUCT: a valid purchase of a product not sold here' })
  @ApiServiceUnavailableResponse({ type: ErrorBody, description: 'STORE_NOT_CONFIGURED or STORE_UNAVAILABLE; nothing granted' })
  verify(@CurrentUser() user: AuthenticatedUser, @Body() body: VerifySubscriptionRequest): Promise<VerifySubscriptionResponse> {
    return this.subscriptions.verify(user.userId, body);
  }
}
