import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/**
 * One store subscription (iOS original transaction, Android purchase token), who it
 * entitles, and the store's state of it as of `storeSignedAt`. Written only by StorePurchasesRepository.
 */
@Entity('store_purchases')
@Unique('uq_store_purchases_platform_ref', ['platform', 'storeRef'])
@Check('ck_store_purchases_platform', `platform IN ('ios', 'android')`)
@Check('ck_store_purchases_environment', `environment IN ('production', 'sandbox')`)
@Index('ix_store_purchases_user_id', ['userId'])
@Index('ix_store_purchases_linked_ref', ['platform', 'linkedStoreRef'], { where: 'linked_store_ref IS NOT NULL' })
export class StorePurchaseEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 8 })
  platform: 'ios' | 'android';

  @Column({ name: 'store_ref', type: 'varchar', length: 512 })
  storeRef: string;

  @Column({ name: 'product_id', type: 'varchar', length: 255, nullable: true })
  productId: string | null;

  /** NULL while the purchase is known only from a notification. */
  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'store_purchases_user_id_fkey' })
  user?: UserEntity | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  state: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** Where the store says it was bought: App Store sandbox and Play test purchases are `sandbox`. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  environment: 'production' | 'sandbox' | null;

  /** The store's transaction in force (iOS transactionId, Android latestOrderId). */
  @Column({ name: 'transaction_id', type: 'varchar', length: 255, nullable: true })
  transactionId: string | null;

  /** Until when the purchase entitles its user; NULL while it does not (expired, revoked, replaced). */
  @Column({ name: 'entitled_until', type: 'timestamptz', nullable: true })
  entitledUntil: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /** The store's time of the stored state (Apple's signedDate; Play: when it was re-read); an older report is ignored. */
  @Column({ name: 'store_signed_at', type: 'timestamptz', nullable: true })
  storeSignedAt: Date | null;

  /** Play's linkedPurchaseToken: the purchase this one replaced in a plan change. */
  @Column({ name: 'linked_store_ref', type: 'varchar', length: 512, nullable: true })
  linkedStoreRef: string | null;

  /** When a newer purchase replaced this one; it entitles no one from then on. */
  @Column({ name: 'superseded_at', type: 'timestamptz', nullable: true })
  supersededAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Set from the service's clock on each verify, not by TypeORM. */
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** A processed store notification; the unique key turns a redelivery into a no-op. Written only by StoreNotificationsRepository. */
@Entity('store_notifications')
@Index('ix_store_notifications_received_at', ['receivedAt'])
@Unique('uq_store_notifications_platform_id', ['platform', 'notificationId'])
@Check('ck_store_notifications_platform', `platform IN ('ios', 'android')`)
export class StoreNotificationEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 8 })
  platform: 'ios' | 'android';

  @Column({ name: 'notification_id', type: 'varchar', length: 255 })
  notificationId: string;

  @CreateDateColumn({ name: 'received_at', type: 'timestamptz' })
  receivedAt: Date;
}
