import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { startOfKstWeek, startOfNextKstWeek } from '../common/korea-time';
import { AppError } from '../common/errors/app-error';
import { activeTier, WEEKLY_REVEAL_LIMIT } from '../users/active-tier';
import type { PremiumTier } from '../users/user.entity';
import { QuotaUsageRepository } from './quota-usage.repository';

/** The specification's quota response. */
export interface QuotaView {
  tier: PremiumTier;
  weekly_used: number;
  weekly_limit: number;
  /** `weekly_limit - weekly_used`, never below 0. */
  remaining: number;
  week_start: string;
  next_reset_at: string;
}

/** A user's quota as read inside a transaction. */
export interface QuotaState {
  tier: PremiumTier;
  weeklyUsed: number;
  weeklyLimit: number;
  weekStart: Date;
}

/**
 * The weekly reveal quota. The row is created on first use and reset lazily (to 0,
 * also from below 0) by any read, reveal or reward in a new week. Every change is a
 * single conditional statement of QuotaUsageRepository (the owner of quota_usage), so concurrent
 * requests can never pass the limit. Methods taking an EntityManager run inside the
 * caller's transaction.
 */
@Injectable()
export class QuotaService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly store: QuotaUsageRepository,
  ) {}

  /** The quota of a user, creating or rolling over its row. */
  async view(userId: number): Promise<QuotaView> {
    return this.dataSource.transaction(async (manager) => toView(await this.current(manager, userId)));
  }

  /** Grants one ad reward (`weekly_used` - 1, may go below 0) and answers the quota after it. */
  async rewardAndView(userId: number): Promise<QuotaView> {
    return this.dataSource.transaction(async (manager) => {
      await this.reward(manager, userId);
      return toView(await this.current(manager, userId));
    });
  }

  /** Creates the row, or resets it when the stored week is not the current one, and reads it. */
  async current(manager: EntityManager, userId: number): Promise<QuotaState> {
    const now = this.clock.now();
    const weekStart = startOfKstWeek(now);
    await this.store.startWeek(manager, userId, weekStart);
    const row = await this.store.read(manager, userId);
    if (!row) throw new AppError('UNAUTHORIZED', 'The account of this token no longer exists');
    const tier = activeTier({ premiumTier: row.premium_tier, premiumUntil: row.premium_until }, now);
    return { tier, weeklyUsed: row.weekly_used, weeklyLimit: WEEKLY_REVEAL_LIMIT[tier], weekStart };
  }

  /** Takes one unit if the limit allows it; the new used count, or null when the quota is spent. */
  async charge(manager: EntityManager, userId: number, limit: number): Promise<number | null> {
    return this.store.charge(manager, userId, limit);
  }

  /** Gives one unit back (an ad reward); the used count may go below 0. */
  async reward(manager: EntityManager, userId: number): Promise<void> {
    await this.current(manager, userId);
    await this.store.giveBack(manager, userId);
  }
}

export function toView(state: QuotaState): QuotaView {
  return {
    tier: state.tier,
    weekly_used: state.weeklyUsed,
    weekly_limit: state.weeklyLimit,
    remaining: Math.max(0, state.weeklyLimit - state.weeklyUsed),
    week_start: state.weekStart.toISOString(),
    next_reset_at: startOfNextKstWeek(state.weekStart).toISOString(),
  };
}
