import { Body, Controller, HttpCode, Param, ParseIntPipe, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnlyOutsideProduction } from '../admin/outside-production.guard';
import { AppError } from '../common/errors/app-error';
import { ApiErrors } from '../common/http/api-errors';
import { SetTierRequest, UserTierResponse } from './dto/operator-tier.dto';
import { OperatorTierService } from './operator-tier.service';

/** The largest user id (users.id is an integer column). */
const MAX_USER_ID = 2 ** 31 - 1;

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
    @Param('userId', new ParseIntPipe({ exceptionFactory: () => new AppError('VALIDATION_FAILED', 'userId must be a positive integer') }))
    userId: number,
    @Body() request: SetTierRequest,
  ): Promise<UserTierResponse> {
    if (userId < 1 || userId > MAX_USER_ID) throw new AppError('VALIDATION_FAILED', 'userId must be a positive integer');
    return this.operatorTier.setTier(userId, request.tier, request.days);
  }
}
