import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DisclosureEntity } from '../disclosures/disclosure.entity';

export type PushFanoutStatus = 'PENDING' | 'EXPANDED';

/**
 * The push outbox: one row per filing to announce, written in the filing's
 * transaction and expanded into deliveries by the dispatcher. Written only by PushFanoutsRepository.
 */
@Entity('push_fanouts')
@Check('ck_push_fanouts_status', `status IN ('PENDING', 'EXPANDED')`)
@Index('ix_push_fanouts_pending', ['createdAt'], { where: `status = 'PENDING'` })
export class PushFanoutEntity {
  @PrimaryColumn({ name: 'rcept_no', type: 'char', length: 14 })
  rceptNo: string;

  @ManyToOne(() => DisclosureEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'rcept_no', foreignKeyConstraintName: 'push_fanouts_rcept_no_fkey' })
  disclosure?: DisclosureEntity;

  @Column({ type: 'varchar', length: 12, default: 'PENDING' })
  status: PushFanoutStatus;

  /** The last watcher (user id) turned into deliveries; expansion goes on after it. Null: not started. */
  @Column({ name: 'expanded_through_user', type: 'integer', nullable: true })
  expandedThroughUser: number | null;

  /** Deliveries created when expanded (0 while push is off). */
  @Column({ type: 'integer', nullable: true })
  deliveries: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expanded_at', type: 'timestamptz', nullable: true })
  expandedAt: Date | null;
}
