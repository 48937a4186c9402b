import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** One store subscription (iOS original transaction, Android purchase token) and who it entitles. */
@Entity('store_purchases')
@Unique('uq_store_purchases_platform_ref', ['platform', 'storeRef'])
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

  @Column({ type: 'varchar', length: 64, nullable: true })
  state: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A processed store notification; the unique key turns a redelivery into a no-op. */
@Entity('store_notifications')
@Unique('uq_store_notifications_platform_id', ['platform', 'notificationId'])
export class StoreNotificationEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 8 })
  platform: 'ios' | 'android';

  @Column({ name: 'notification_id', type: 'varchar', length: 255 })
  notificationId: string;

  @Column({ name: 'received_at', type: 'timestamptz' })
  receivedAt: Date;
}
