import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { deleteOlderThan } from '../database/delete-in-batches';
import { StoreNotificationEntity } from './store-purchase.entity';
import type { StorePlatform } from './tier-transitions';

/**
 * Owner of table store_notifications: the only writer. Records each processed store
 * notification so that a redelivery is recognised and ignored.
 */
@Injectable()
export class StoreNotificationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Records the notification in the caller's transaction; false when it was recorded before (the unique key decides). */
  async record(manager: EntityManager, platform: StorePlatform, notificationId: string): Promise<boolean> {
    const inserted = await manager.query<{ id: number }[]>(
      `INSERT INTO store_notifications (platform, notification_id) VALUES ($1, $2)
       ON CONFLICT ON CONSTRAINT uq_store_notifications_platform_id DO NOTHING RETURNING id`,
      [platform, notificationId],
    );
    return inserted.length > 0;
  }

  /** Forgets notifications received before `cutoff` (the stores stop redelivering within days). */
  trimReceivedBefore(cutoff: Date): Promise<number> {
    return deleteOlderThan(this.dataSource, 'store_notifications', 'received_at', cutoff);
  }

  /** Whether the notification was processed already (a cheap early answer; `record` stays the last word). */
  async seen(platform: StorePlatform, notificationId: string): Promise<boolean> {
    return this.dataSource.getRepository(StoreNotificationEntity).exists({ where: { platform, notificationId } });
  }
}
