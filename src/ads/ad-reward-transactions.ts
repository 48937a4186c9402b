import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Owner of table ad_reward_transactions: the only writer. The table exists only to
 * refuse a repeated ad-network callback: its primary key lets exactly one of any
 * number of identical callbacks grant.
 */
@Injectable()
export class AdRewardTransactions {
  /** Records a granted transaction; false when it was recorded before (a repeat). */
  async record(
    manager: EntityManager,
    reward: { transactionId: string; userId: number; adUnit: string; keyId: string },
  ): Promise<boolean> {
    const recorded = await manager.query<unknown[]>(
      `INSERT INTO ad_reward_transactions (transaction_id, user_id, ad_unit, key_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (transaction_id) DO NOTHING RETURNING transaction_id`,
      [reward.transactionId, reward.userId, reward.adUnit, reward.keyId],
    );
    return recorded.length > 0;
  }
}
