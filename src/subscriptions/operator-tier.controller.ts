import { Body, Controller, HttpCode, Param, ParseIntPipe, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AdminOnlyOutsideProduction } from '../admin/outside-production.guard';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { DAY_MS } from '../config/env-reader';
import { UsersRepository } from '../users/users.repository';
import { SetTierRequest, UserTierResponse } from './dto/operator-tier.dto';
import { TierTransitions } from './tier-transitions';
import { ApiErrors } from '../common/http/api-errors';

/** The largest user id (users.id is an integer column). */
const MAX_USER_ID = 2 ** 31 - 1;

@ApiTags('admin')
@AdminOnlyOutsideProduction()
@Controller('api/v1/admin/users')
export class OperatorTierController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly transitions: TierTransitions,
    private readonly users: UsersRepository,
  ) {}

  @Post(':userId/tier')
  @HttpCode(200)
  @ApiOperation({
    summary: "Set a user's tier by hand, to try the tiers (local and dev only; 404 in production)",
    description:
      'Goes through the same tier transitions as the stores: a drop starts the 7-day watchlist cleanup timer, ' +
      'a rise cancels it. `pro`/`max` last `days` from now.',
  })
  @ApiOkResponse({ type: UserTierResponse })
  @ApiErrors({ VALIDATION_FAILED: 'tier, days or userId is not valid', NOT_FOUND: 'no such user (in production: the route does not exist)' })
  async setTier(
    @Param('userId', new ParseIntPipe({ exceptionFactory: () => new AppError('VALIDATION_FAILED', 'userId must be a positive integer') }))
    userId: number,
    @Body() request: SetTierRequest,
  ): Promise<UserTierResponse> {
    if (userId < 1 || userId > MAX_USER_ID) throw new AppError('VALIDATION_FAILED', 'userId must be a positive integer');
    const until = request.tier === 'none' ? null : new Date(this.clock.nowMs() + (request.days ?? 0) * DAY_MS);
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.transitions.setByOperator(manager, userId, request.tier, until))) {
        throw new AppError('NOT_FOUND', `No user ${userId}`);
      }
      const state = await this.users.premiumState(manager, userId);
      return {
        user_id: userId,
        tier: state!.premium_tier,
        premium_until: state!.premium_until?.toISOString() ?? null,
        downgraded_at: state!.downgraded_at?.toISOString() ?? null,
      };
    });
  }
}
