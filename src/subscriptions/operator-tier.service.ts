import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { DAY_MS } from '../config/env-reader';
import type { PremiumTier } from '../users/user.entity';
import { UsersRepository } from '../users/users.repository';
import type { UserTierResponse } from './dto/operator-tier.dto';
import { TierTransitions } from './tier-transitions';

/** POST /api/v1/admin/users/{userId}/tier: an operator's tier, through the same transitions as the stores. */
@Injectable()
export class OperatorTierService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly transitions: TierTransitions,
    private readonly users: UsersRepository,
  ) {}

  /** Sets the tier (`pro`/`max` for `days` from now, or `none`) in one transaction; NOT_FOUND for an unknown user. */
  setTier(userId: number, tier: PremiumTier, days: number | undefined): Promise<UserTierResponse> {
    const until = tier === 'none' ? null : new Date(this.clock.nowMs() + (days ?? 0) * DAY_MS);
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.transitions.setByOperator(manager, userId, tier, until))) {
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
