import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** One row per user: the reveals used in the quota week that starts at `weekStart`. Written only by QuotaUsageRepository. */
@Entity('quota_usage')
export class QuotaUsageEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  // Many-to-one in TypeORM's terms only: the primary key already makes it one row per user,
  // and a one-to-one would add a second unique constraint the migration does not have.
  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'quota_usage_user_id_fkey' })
  user?: UserEntity;

  @Column({ name: 'week_start', type: 'timestamptz' })
  weekStart: Date;

  @Column({ name: 'weekly_used', type: 'integer', default: 0 })
  weeklyUsed: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
