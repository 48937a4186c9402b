import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { activeTier, WEEKLY_REVEAL_LIMIT } from '../users/active-tier';
import type { PremiumTier } from '../users/user.entity';
import { nextResetAfter, weekStartOf } from './quota-week';

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
 * single conditional statement, so concurrent requests can never pass the limit.
 * Methods taking an EntityManager run inside the caller's transaction.
 */
@Injectable()
export class QuotaService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
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
    const weekStart = weekStartOf(now);
    await manager.query(
      `INSERT INTO quota_usage (user_id, week_start, weekly_used) VALUES ($1, $2, 0)
       ON CONFLICT (user_id) DO UPDATE SET week_start = EXCLUDED.week_start, weekly_used = 0, updated_at = now()
       WHERE quota_usage.week_start <> EXCLUDED.week_start`,
      [userId, weekStart],
    );
    const [row] = await manager.query<
      { weekly_used: number; premium_tier: PremiumTier; premium_until: Date | null }[]
    >(
      `SELECT q.weekly_used, u.premium_tier, u.premium_until
       FROM quota_usage q JOIN users u ON u.id = q.user_id WHERE q.user_id = $1`,
      [userId],
    );
    if (!row) throw new AppError('UNAUTHORIZED', 'The account of this token no longer exists');
    const tier = activeTier({ premiumTier: row.premium_tier, premiumUntil: row.premium_until }, now);
    return { tier, weeklyUsed: row.weekly_used, weeklyLimit: WEEKLY_REVEAL_LIMIT[tier], weekStart };
  }

  /**
   * Takes one unit if the limit allows it and returns the new used count, or null
   * when the quota is spent: the condition is checked by the UPDATE itself, under
   * the row lock.
   */
  async charge(manager: EntityManager, userId: number, limit: number): Promise<number | null> {
    const rows = await manager.query<{ weekly_used: number }[]>(
      `WITH charged AS (
         UPDATE quota_usage SET weekly_used = weekly_used + 1, updated_at = now()
         WHERE user_id = $1 AND weekly_used < $2 RETURNING weekly_used
       ) SELECT weekly_used FROM charged`,
      [userId, limit],
    );
    return rows[0]?.weekly_used ?? null;
  }

  /** Gives one unit back (an ad reward); the used count may go below 0. */
  async reward(manager: EntityManager, userId: number): Promise<void> {
    await this.current(manager, userId);
    await manager.query('UPDATE quota_usage SET weekly_used = weekly_used - 1, updated_at = now() WHERE user_id = $1', [
      userId,
    ]);
  }
}

export function toView(state: QuotaState): QuotaView {
  return {
    tier: state.tier,
    weekly_used: state.weeklyUsed,
    weekly_limit: state.weeklyLimit,
    remaining: Math.max(0, state.weeklyLimit - state.weeklyUsed),
    week_start: state.weekStart.toISOString(),
    next_reset_at: nextResetAfter(state.weekStart).toISOString(),
  };
}
