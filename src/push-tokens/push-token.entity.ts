import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { UserEntity } from '../users/user.entity';

export const PUSH_PLATFORMS = ['ios', 'android'] as const;
export type PushPlatform = (typeof PUSH_PLATFORMS)[number];

/** The column's declared size (migration WatchlistAndPush1764000000000). */
const FCM_TOKEN_COLUMN_LENGTH = 4096;

/**
 * The longest token accepted. Real FCM tokens are about 160–200 characters. The
 * column would take 4096, but a btree entry (uq_push_tokens_fcm_token, the primary
 * key of push_deliveries) must stay under about 2,700 bytes, and tokens are ASCII,
 * so characters are bytes: 1024 leaves room for any real token and for the index.
 */
export const FCM_TOKEN_MAX_LENGTH = 1024;

/** A device's FCM registration token. Unique: a token belongs to one user at a time. Written only by PushTokensRepository. */
@Entity('push_tokens')
@Unique('uq_push_tokens_fcm_token', ['fcmToken'])
@Check('ck_push_tokens_platform', `platform IN ('ios', 'android')`)
@Index('ix_push_tokens_user_id', ['userId'])
export class PushTokenEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'fcm_token', type: 'varchar', length: FCM_TOKEN_COLUMN_LENGTH })
  fcmToken: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'push_tokens_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 8 })
  platform: PushPlatform;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
