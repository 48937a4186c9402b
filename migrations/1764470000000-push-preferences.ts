import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * What a user wants pushed: per watch entry, the filing categories and the lowest impact
 * level (null: all); per user, quiet hours in KST (no row: none). Deliveries that fall in
 * the quiet window wait as HELD until its end, when one per device carries a digest and
 * the others become DIGESTED.
 */
export class PushPreferences1764470000000 implements MigrationInterface {
  name = 'PushPreferences1764470000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE watch_stocks
         ADD COLUMN categories varchar(24)[] NULL,
         ADD COLUMN min_impact varchar(6) NULL,
         ADD CONSTRAINT ck_watch_stocks_categories CHECK (categories <@ ARRAY['periodic', 'major_event', 'securities_issuance', 'ownership', 'exchange', 'audit', 'other']::varchar[]),
         ADD CONSTRAINT ck_watch_stocks_min_impact CHECK (min_impact IN ('low', 'medium', 'high'))`,
    );
    await queryRunner.query(
      `CREATE TABLE push_preferences (
         user_id integer PRIMARY KEY CONSTRAINT push_preferences_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
         quiet_start time(0) NOT NULL,
         quiet_end time(0) NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT ck_push_preferences_quiet_window CHECK (quiet_start <> quiet_end)
       )`,
    );
    await queryRunner.query('ALTER TABLE push_deliveries DROP CONSTRAINT ck_push_deliveries_status');
    await queryRunner.query(
      `ALTER TABLE push_deliveries ADD CONSTRAINT ck_push_deliveries_status
         CHECK (status IN ('PENDING', 'SENDING', 'SENT', 'FAILED', 'UNREGISTERED', 'ABANDONED', 'HELD', 'DIGESTED'))`,
    );
    await queryRunner.query(`CREATE INDEX ix_push_deliveries_held ON push_deliveries (available_at) WHERE status = 'HELD'`);
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
