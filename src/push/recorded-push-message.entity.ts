import { Check, Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type RecordedOutcome = 'sent' | 'unregistered';

/** A message the recording push sender took instead of FCM. Written only by RecordingPushSender. */
@Entity('recorded_push_messages')
@Check('ck_recorded_push_messages_outcome', `outcome IN ('sent', 'unregistered')`)
export class RecordedPushMessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'fcm_token', type: 'varchar', length: 4096 })
  fcmToken: string;

  /** The token's platform when it was sent; null when the token was already gone. */
  @Column({ type: 'varchar', length: 8, nullable: true })
  platform: string | null;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'jsonb' })
  data: Record<string, string>;

  @Column({ type: 'varchar', length: 16 })
  outcome: RecordedOutcome;

  @Column({ name: 'recorded_at', type: 'timestamptz' })
  recordedAt: Date;
}
