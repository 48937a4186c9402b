import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** One store subscription (iOS original transaction, Android purchase token) and who it entitles. Written only by StorePurchases. */
@Entity('store_purchases')
@Unique('uq_store_purchases_platform_ref', ['platform', 'storeRef'])
@Check('ck_store_purchases_platform', `platform IN ('ios', 'android')`)
@Index('ix_store_purchases_user_id', ['userId'])
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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Set from the service's clock on each verify, not by TypeORM. */
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** A processed store notification; the unique key turns a redelivery into a no-op. Written only by StoreNotifications. */
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
