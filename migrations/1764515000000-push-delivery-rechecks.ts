import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * Two terminal statuses of a push delivery, set when it is re-checked before being handed to
 * the sender (a held push at the end of quiet hours, a retry after its backoff, a delivery
 * claimed again after its sender died): TOKEN_GONE, the token was deleted or now belongs to
 * another user; UNWATCHED, the user no longer watches the filing's company or turned its
 * notifications off.
 */
export class PushDeliveryRechecks1764515000000 implements MigrationInterface {
  name = 'PushDeliveryRechecks1764515000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE push_deliveries DROP CONSTRAINT ck_push_deliveries_status');
    await queryRunner.query(
      `ALTER TABLE push_deliveries ADD CONSTRAINT ck_push_deliveries_status
         CHECK (status IN ('PENDING', 'SENDING', 'SENT', 'FAILED', 'UNREGISTERED', 'ABANDONED', 'HELD', 'DIGESTED', 'TOKEN_GONE', 'UNWATCHED'))`,
    );
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
