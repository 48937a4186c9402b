import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A granted ad reward; exists only so that a repeated callback is refused. Written only by AdRewardTransactionsRepository. */
@Entity('ad_reward_transactions')
@Index('ix_ad_reward_transactions_user_id', ['userId'])
@Index('ix_ad_reward_transactions_granted_at', ['grantedAt'])
export class AdRewardTransactionEntity {
  @PrimaryColumn({ name: 'transaction_id', type: 'varchar', length: 200 })
  transactionId: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'ad_reward_transactions_user_id_fkey' })
  user?: UserEntity;

  @Column({ name: 'ad_unit', type: 'varchar', length: 200, default: '' })
  adUnit: string;

  @Column({ name: 'key_id', type: 'varchar', length: 100, default: '' })
  keyId: string;

  @CreateDateColumn({ name: 'granted_at', type: 'timestamptz' })
  grantedAt: Date;
}
