import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A company on a user's watchlist; name and stock code are copied from the stock master when added. Written only by WatchEntries. */
@Entity('watch_stocks')
@Unique('uq_watch_stocks_user_corp', ['userId', 'corpCode'])
// Partial, for the push fan-out: who watches this company with notifications on.
@Index('ix_watch_stocks_corp_notify', ['corpCode'], { where: 'notify_enabled' })
export class WatchStockEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'watch_stocks_user_id_fkey' })
  user?: UserEntity;

  @Column({ name: 'corp_code', type: 'char', length: 8 })
  corpCode: string;

  @Column({ name: 'corp_name', type: 'varchar', length: 255 })
  corpName: string;

  @Column({ name: 'stock_code', type: 'varchar', length: 6, nullable: true })
  stockCode: string | null;

  @Column({ name: 'notify_enabled', type: 'boolean', default: true })
  notifyEnabled: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
