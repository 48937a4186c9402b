import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { LeasedWorkColumns } from '../database/leased-work-columns';
import { DisclosureEntity } from '../disclosures/disclosure.entity';
import { UserEntity } from '../users/user.entity';

/**
 * HELD: the user's quiet hours; waits until `available_at` (the window's end), when the
 * newest of a device's held deliveries becomes PENDING carrying the digest and the
 * others become DIGESTED (told by that digest, never sent themselves).
 * TOKEN_GONE and UNWATCHED: dropped, never sent, when re-checked at release or claim (the
 * token was deleted or moved to another user; the company was unwatched or muted).
 * ABANDONED: its lease expired while SENDING with the attempts spent (maybe delivered).
 */
export type PushDeliveryStatus =
  'PENDING' | 'SENDING' | 'SENT' | 'FAILED' | 'UNREGISTERED' | 'ABANDONED' | 'HELD' | 'DIGESTED' | 'TOKEN_GONE' | 'UNWATCHED';

/**
 * One message per (filing, token): the primary key keeps a filing to one row per device
 * (a resend after a crash reuses the row). Written only by PushDeliveriesRepository.
 *
 * ix_push_deliveries_claimable is (available_at NULLS FIRST, created_at) WHERE status =
 * 'PENDING'; TypeORM cannot declare NULLS FIRST, so it is `synchronize: false`.
 */
@Entity('push_deliveries')
@Check(
  'ck_push_deliveries_status',
  `status IN ('PENDING', 'SENDING', 'SENT', 'FAILED', 'UNREGISTERED', 'ABANDONED', 'HELD', 'DIGESTED', 'TOKEN_GONE', 'UNWATCHED')`,
)
@Index('ix_push_deliveries_claimable', { synchronize: false })
@Index('ix_push_deliveries_sending', ['work.leaseExpiresAt'], { where: `status = 'SENDING'` })
@Index('ix_push_deliveries_held', ['work.availableAt'], { where: `status = 'HELD'` })
@Index('ix_push_deliveries_user_id', ['userId'])
// The retention job deletes by age (migration PushHistoryAndRetention1764460000000).
@Index('ix_push_deliveries_created_at', ['createdAt'])
export class PushDeliveryEntity {
  @PrimaryColumn({ name: 'rcept_no', type: 'char', length: 14 })
  rceptNo: string;

  @ManyToOne(() => DisclosureEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'rcept_no', foreignKeyConstraintName: 'push_deliveries_rcept_no_fkey' })
  disclosure?: DisclosureEntity;

  /** Not a foreign key: the delivery outlives the token's deletion (UNREGISTERED). */
  @PrimaryColumn({ name: 'fcm_token', type: 'varchar', length: 4096 })
  fcmToken: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'push_deliveries_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 16, default: 'PENDING' })
  status: PushDeliveryStatus;

  /** A SENDING delivery whose lease expired is claimed again while it has attempts left, then ABANDONED. */
  @Column(() => LeasedWorkColumns, { prefix: false })
  work: LeasedWorkColumns;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  /** What the notification said, written with its outcome (the caller's push history). */
  @Column({ type: 'varchar', length: 200, nullable: true })
  title: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  body: string | null;
}
