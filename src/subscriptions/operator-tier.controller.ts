import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnlyOutsideProduction } from '../admin/outside-production.guard';
import { ApiErrors } from '../common/http/api-errors';
import { PositiveIdParam } from '../common/http/path-parameter.pipes';
import { SetTierRequest, UserTierResponse } from './dto/operator-tier.dto';
import { OperatorTierService } from './operator-tier.service';

@ApiTags('admin')
@AdminOnlyOutsideProduction()
@Controller('api/v1/admin/users')
export class OperatorTierController {
  constructor(private readonly operatorTier: OperatorTierService) {}

  @Post(':userId/tier')
  @HttpCode(200)
  @ApiOperation({
    summary: "Set a user's tier by hand, to try the tiers (local and dev only; 404 in production)",
    description:
      'Goes through the same tier transitions as the stores: a drop starts the 7-day watchlist cleanup timer, ' +
      'a rise cancels it. `pro`/`max` last `days` from now.',
  })
  @ApiOkResponse({ type: UserTierResponse })
  @ApiErrors({
    VALIDATION_FAILED: 'tier, days or userId is not valid',
    NOT_FOUND: 'no such user (in production: the route does not exist)',
  })
  async setTier(
    // users.id is an integer column: the default range.
    @PositiveIdParam('userId') userId: number,
    @Body() request: SetTierRequest,
  ): Promise<UserTierResponse> {
    return this.operatorTier.setTier(userId, request.tier, request.days);
  }
}
