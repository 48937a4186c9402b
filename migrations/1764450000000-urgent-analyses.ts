import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * Analyses someone waits for: a new filing of a company watched with notifications on
 * is marked `priority` 1 in its own transaction, and the scheduler claims those first
 * (their push waits for the one-liner), ahead of any backfill. Adding a column with a
 * constant default rewrites nothing; the partial index holds only the waiting urgent rows.
 */
export class UrgentAnalyses1764450000000 implements MigrationInterface {
  name = 'UrgentAnalyses1764450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE analyses ADD COLUMN priority smallint NOT NULL DEFAULT 0');
    await queryRunner.query(
      `CREATE INDEX ix_analyses_urgent ON analyses (created_at) WHERE status = 'PENDING' AND available_at IS NULL AND priority > 0`,
    );
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
