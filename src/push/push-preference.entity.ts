import { Check, Column, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A user's quiet hours (KST); no row: none. Written only by PushPreferencesRepository. */
@Entity('push_preferences')
@Check('ck_push_preferences_quiet_window', 'quiet_start <> quiet_end')
export class PushPreferenceEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @OneToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'push_preferences_user_id_fkey' })
  user?: UserEntity;

  /** Read as `HH:MM:SS`. */
  @Column({ name: 'quiet_start', type: 'time', precision: 0 })
  quietStart: string;

  @Column({ name: 'quiet_end', type: 'time', precision: 0 })
  quietEnd: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
