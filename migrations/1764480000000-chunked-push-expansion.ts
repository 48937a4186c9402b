import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * A fan-out is expanded a few thousand watchers per transaction, in user id order: the
 * outbox row remembers the last user done, and the watchers of a company are read in
 * that order from an index that holds it.
 */
export class ChunkedPushExpansion1764480000000 implements MigrationInterface {
  name = 'ChunkedPushExpansion1764480000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE push_fanouts ADD COLUMN expanded_through_user integer NULL');
    await queryRunner.query('DROP INDEX ix_watch_stocks_corp_notify');
    await queryRunner.query('CREATE INDEX ix_watch_stocks_corp_notify ON watch_stocks (corp_code, user_id) WHERE notify_enabled');
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
