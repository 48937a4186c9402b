import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * What each push said, for the caller's history (`GET /api/v1/push/history`), and the
 * indexes the daily retention job deletes by, in batches, without scanning whole tables.
 */
export class PushHistoryAndRetention1764460000000 implements MigrationInterface {
  name = 'PushHistoryAndRetention1764460000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE push_deliveries ADD COLUMN title varchar(200) NULL, ADD COLUMN body varchar(500) NULL');
    await queryRunner.query('CREATE INDEX ix_push_deliveries_created_at ON push_deliveries (created_at)');
    await queryRunner.query('CREATE INDEX ix_store_notifications_received_at ON store_notifications (received_at)');
    await queryRunner.query('CREATE INDEX ix_ad_reward_transactions_granted_at ON ad_reward_transactions (granted_at)');
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
