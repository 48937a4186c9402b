import { Column } from 'typeorm';

/**
 * The columns a table needs to be a leased work queue (analyses, push_deliveries),
 * embedded without a prefix: a row is claimed with `FOR UPDATE SKIP LOCKED` under a
 * lease (`lease_owner` until `lease_expires_at`), and a retry waits until `available_at`.
 */
export class LeasedWorkColumns {
  /** Attempts started so far (claims). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** A PENDING row is not claimed before this moment (retry backoff); null: at once. */
  @Column({ name: 'available_at', type: 'timestamptz', nullable: true })
  availableAt: Date | null;

  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner: string | null;

  /** What happens to a row whose lease expired is the queue's own rule. */
  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt: Date | null;
}
