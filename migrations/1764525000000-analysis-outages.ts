import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * A model outage no longer spends an analysis' attempts: `outage_failures` counts the
 * outages in a row that postponed it, and when the model answers again every analysis
 * with one is claimable at once. Analyses an outage left UNAVAILABLE before this change
 * are marked with one, read from their last error (the texts the model analyzers wrote
 * for a 408, 409, 429 or 5xx, a timeout, a failed connection or a call that failed before
 * any answer), so the scheduler re-queues them once the model answers. Adding a column
 * with a constant default rewrites nothing; the partial index holds only those rows.
 */
export class AnalysisOutages1764525000000 implements MigrationInterface {
  name = 'AnalysisOutages1764525000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE analyses ADD COLUMN outage_failures integer NOT NULL DEFAULT 0');
    await queryRunner.query(
      `UPDATE analyses SET outage_failures = 1
       WHERE status = 'UNAVAILABLE' AND (
         last_error ~ '^the (OpenAI-compatible|Anthropic) API answered HTTP (408|409|429|5[0-9][0-9])'
         OR last_error ~ '^\\S+ did not answer within '
         OR last_error ~ '^could not reach '
         OR last_error ~ '^the (OpenAI|Anthropic) call failed: '
       )`,
    );
    await queryRunner.query('CREATE INDEX ix_analyses_outage ON analyses (status) WHERE outage_failures > 0');
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
