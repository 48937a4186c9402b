import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Owner of table revealed_disclosures: the only writer. A row says the user has paid
 * (or did not need to pay) for a filing's full analysis; AnalysisService.reveal
 * records it in the transaction that charges the quota, and reads it in `meta`.
 */
@Injectable()
export class RevealedDisclosuresRepository {
  /** Records the reveal; false when the user had already revealed the filing (the primary key decides, also between concurrent reveals). */
  async record(manager: EntityManager, userId: number, rceptNo: string): Promise<boolean> {
    const inserted = await manager.query<unknown[]>(
      `INSERT INTO revealed_disclosures (user_id, rcept_no) VALUES ($1, $2)
       ON CONFLICT (user_id, rcept_no) DO NOTHING RETURNING 1`,
      [userId, rceptNo],
    );
    return inserted.length > 0;
  }
}
