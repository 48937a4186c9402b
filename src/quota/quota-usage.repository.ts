import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { PremiumTier } from '../users/user.entity';

/** A user's used count with the premium columns its limit depends on. */
export interface QuotaUsageRow {
  weekly_used: number;
  premium_tier: PremiumTier;
  premium_until: Date | null;
}

/**
 * Owner of table quota_usage: the only writer. Every method runs in the caller's
 * transaction, and every change is one conditional statement, so concurrent
 * requests can never pass the limit. The rules (week, limit per tier) live in QuotaService.
 */
@Injectable()
export class QuotaUsageRepository {
  /** Creates the user's row for the week, or resets it (to 0, also from below 0) when its stored week is another. */
  async startWeek(manager: EntityManager, userId: number, weekStart: Date): Promise<void> {
    await manager.query(
      `INSERT INTO quota_usage (user_id, week_start, weekly_used) VALUES ($1, $2, 0)
       ON CONFLICT (user_id) DO UPDATE SET week_start = EXCLUDED.week_start, weekly_used = 0, updated_at = now()
       WHERE quota_usage.week_start <> EXCLUDED.week_start`,
      [userId, weekStart],
    );
  }

  /** The used count and the user's premium columns; undefined when the user is gone. */
  async read(manager: EntityManager, userId: number): Promise<QuotaUsageRow | undefined> {
    const [row] = await manager.query<QuotaUsageRow[]>(
      `SELECT q.weekly_used, u.premium_tier, u.premium_until
       FROM quota_usage q JOIN users u ON u.id = q.user_id WHERE q.user_id = $1`,
      [userId],
    );
    return row;
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

  /** Gives one unit back; the used count may go below 0. */
  async giveBack(manager: EntityManager, userId: number): Promise<void> {
    await manager.query('UPDATE quota_usage SET weekly_used = weekly_used - 1, updated_at = now() WHERE user_id = $1', [userId]);
  }
}
