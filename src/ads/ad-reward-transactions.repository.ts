import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { deleteOlderThan } from '../database/delete-in-batches';

/**
 * Owner of table ad_reward_transactions: the only writer. The table exists only to
 * refuse a repeated ad-network callback: its primary key lets exactly one of any
 * number of identical callbacks grant.
 */
@Injectable()
export class AdRewardTransactionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Forgets transactions granted before `cutoff`: a callback older than an hour is refused as expired anyway. */
  trimGrantedBefore(cutoff: Date): Promise<number> {
    return deleteOlderThan(this.dataSource, 'ad_reward_transactions', 'granted_at', cutoff);
  }

  /** Records a granted transaction; false when it was recorded before (a repeat). */
  async record(manager: EntityManager, reward: { transactionId: string; userId: number; adUnit: string; keyId: string }): Promise<boolean> {
    const recorded = await manager.query<unknown[]>(
      `INSERT INTO ad_reward_transactions (transaction_id, user_id, ad_unit, key_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (transaction_id) DO NOTHING RETURNING transaction_id`,
      [reward.transactionId, reward.userId, reward.adUnit, reward.keyId],
    );
    return recorded.length > 0;
  }
}
