import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * A disclosure-system outage no longer spends an analysis' attempts either. Analyses such an
 * outage left UNAVAILABLE before this change are marked with one outage, read from their last
 * error (the scheduler's text for a document.xml that answered 800, 900 or 020, HTTP 429 or 5xx,
 * nothing in time, or no connection, after the client's retries), so the scheduler re-queues them
 * at the next document the disclosure system serves. 014 and the other refusals stay UNAVAILABLE.
 */
export class AnalysisDartOutages1764531000000 implements MigrationInterface {
  name = 'AnalysisDartOutages1764531000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE analyses SET outage_failures = 1
       WHERE status = 'UNAVAILABLE' AND outage_failures = 0
         AND last_error ~ '^disclosure system (800|900|020|HTTP (429|5[0-9][0-9])|NETWORK|TIMEOUT): '`,
    );
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
