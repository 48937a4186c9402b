import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A company on a user's watchlist; name and stock code are copied from the stock master when added. */
@Entity('watch_stocks')
@Unique('uq_watch_stocks_user_corp', ['userId', 'corpCode'])
export class WatchStockEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
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
