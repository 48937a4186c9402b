import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

export class AnalysesAndQuota1763900000000 implements MigrationInterface {
  name = 'AnalysesAndQuota1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The work-queue side of an analysis: attempts and backoff, the lease of the
    // worker holding it, and what produced the result.
    await queryRunner.query(`
      ALTER TABLE analyses
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN available_at timestamptz NULL,
        ADD COLUMN lease_owner varchar(64) NULL,
        ADD COLUMN lease_expires_at timestamptz NULL,
        ADD COLUMN last_error varchar(1000) NULL,
        ADD COLUMN provider varchar(32) NULL,
        ADD COLUMN model varchar(100) NULL,
        ADD COLUMN prompt_tokens integer NULL,
        ADD COLUMN completion_tokens integer NULL,
        ADD COLUMN truncated boolean NULL,
        ADD CONSTRAINT ck_analyses_completed CHECK (
          status <> 'COMPLETED' OR (one_liner IS NOT NULL AND result IS NOT NULL AND doc_length IS NOT NULL))`);
    await queryRunner.query('DROP INDEX ix_analyses_pending');
    // NULL available_at: claimable at once; a retry sets it to the end of its backoff.
    // One index per kind of claim, so each claim is an ordered index scan, never a sort.
    await queryRunner.query("CREATE INDEX ix_analyses_new ON analyses (created_at) WHERE status = 'PENDING' AND available_at IS NULL");
    await queryRunner.query(
      "CREATE INDEX ix_analyses_retry ON analyses (available_at) WHERE status = 'PENDING' AND available_at IS NOT NULL",
    );
    await queryRunner.query("CREATE INDEX ix_analyses_leased ON analyses (lease_expires_at) WHERE status = 'PROCESSING'");

    await queryRunner.query(`
      CREATE TABLE revealed_disclosures (
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        rcept_no char(14) NOT NULL REFERENCES disclosures (rcept_no) ON DELETE CASCADE,
        revealed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, rcept_no)
      )`);

    // One row per user: the used count of the week that starts at week_start.
    await queryRunner.query(`
      CREATE TABLE quota_usage (
        user_id integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        week_start timestamptz NOT NULL,
        weekly_used integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    // Exists only to refuse a repeated ad-network callback.
    await queryRunner.query(`
      CREATE TABLE ad_reward_transactions (
        transaction_id varchar(200) PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        ad_unit varchar(200) NOT NULL DEFAULT '',
        key_id varchar(100) NOT NULL DEFAULT '',
        granted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX ix_ad_reward_transactions_user_id ON ad_reward_transactions (user_id)');
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
