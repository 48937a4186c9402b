import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * Entitlement from the user's purchases, not from the last store message. Each purchase
 * keeps the store's state of it, with the store's own time of that state, so a late or
 * repeated notification older than what is stored changes nothing; the user's tier is
 * derived from every purchase in force. Plan changes in Play link a new purchase to the
 * one it replaced. The downgrade timer remembers the tier it dropped from, so a rise to
 * a lower tier within the 7 days does not cancel the cleanup above that tier.
 */
export class StorePurchaseState1764490000000 implements MigrationInterface {
  name = 'StorePurchaseState1764490000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE store_purchases
         ADD COLUMN environment varchar(16) NULL,
         ADD COLUMN transaction_id varchar(255) NULL,
         ADD COLUMN entitled_until timestamptz NULL,
         ADD COLUMN revoked_at timestamptz NULL,
         ADD COLUMN store_signed_at timestamptz NULL,
         ADD COLUMN linked_store_ref varchar(512) NULL,
         ADD COLUMN superseded_at timestamptz NULL,
         ADD CONSTRAINT ck_store_purchases_environment CHECK (environment IN ('production', 'sandbox'))`,
    );
    // The purchase each user's tier came from keeps entitling until its stored end.
    await queryRunner.query(
      `UPDATE store_purchases p SET entitled_until = u.premium_until
         FROM users u
        WHERE u.id = p.user_id AND u.premium_tx_ref = p.store_ref AND u.premium_platform = p.platform`,
    );
    await queryRunner.query(
      'CREATE INDEX ix_store_purchases_linked_ref ON store_purchases (platform, linked_store_ref) WHERE linked_store_ref IS NOT NULL',
    );

    await queryRunner.query(
      `ALTER TABLE users
         ADD COLUMN downgraded_from varchar(8) NULL,
         ADD CONSTRAINT ck_users_downgraded_from CHECK (downgraded_from IN ('pro', 'max'))`,
    );
    await queryRunner.query(`UPDATE users SET downgraded_from = 'max' WHERE downgraded_at IS NOT NULL`);
    // The sweep that records lapses when they happen, not the next day.
    await queryRunner.query(`CREATE INDEX ix_users_premium_until ON users (premium_until) WHERE premium_tier <> 'none'`);
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
