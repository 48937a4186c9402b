import { Controller, Get, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { QuotaResponse } from './dto/quota.dto';
import { QuotaService } from './quota.service';

@ApiTags('quota')
@Controller('api/v1/quota')
export class QuotaController {
  constructor(private readonly quota: QuotaService) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: "The caller's weekly reveal quota (the row is created or rolled over on read)" })
  @ApiOkResponse({ type: QuotaResponse })
  view(@CurrentUser() user: AuthenticatedUser): Promise<QuotaResponse> {
    return this.quota.view(user.userId);
  }
}

/**
 * The ad reward without an ad network, for development. Registered only in
 * APP_ENV local and dev (see QuotaHttpModule): in production the route does not
 * exist, so it answers Nest's own 404 whatever the credentials. Production rewards
 * arrive through the ad network's verification callback (`GET /api/v1/adnet/ssv`).
 */
@ApiTags('quota')
@Controller('api/v1/quota')
export class QuotaAdRewardController {
  constructor(private readonly quota: QuotaService) {}

  @Post('ad-reward')
  @Authenticated()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Grant one ad reward (weekly_used - 1, may go below 0); APP_ENV local and dev only, 404 in production',
  })
  @ApiOkResponse({ type: QuotaResponse, description: 'The quota after the reward' })
  reward(@CurrentUser() user: AuthenticatedUser): Promise<QuotaResponse> {
    return this.quota.rewardAndView(user.userId);
  }
}
