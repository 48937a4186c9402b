import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PushDeliveriesRepository } from './push-deliveries.repository';
import type { QuietHours } from './quiet-hours';

/**
 * Owner of table push_preferences: the only writer. A user's quiet hours; the fan-out
 * reads them in its join to hold what falls in the window (PushDeliveriesRepository).
 */
@Injectable()
export class PushPreferencesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly deliveries: PushDeliveriesRepository,
  ) {}

  async quietHours(userId: number): Promise<QuietHours | null> {
    const [row] = await this.dataSource.query<{ quiet_start: string; quiet_end: string }[]>(
      'SELECT quiet_start, quiet_end FROM push_preferences WHERE user_id = $1',
      [userId],
    );
    return row ? { start: row.quiet_start.slice(0, 5), end: row.quiet_end.slice(0, 5) } : null;
  }

  /**
   * Sets the user's quiet hours (null: none) and, in the same transaction, moves what is
   * held to the new window's end, or releases it when now is outside the new window.
   * A user deleted meanwhile fails the foreign key: a 401, like any request of theirs.
   */
  async setQuietHours(userId: number, hours: QuietHours | null): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (hours === null) {
        await manager.query('DELETE FROM push_preferences WHERE user_id = $1', [userId]);
      } else {
        await manager.query(
          `INSERT INTO push_preferences (user_id, quiet_start, quiet_end) VALUES ($1, $2, $3)
           ON CONFLICT (user_id) DO UPDATE SET quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, updated_at = now()`,
          [userId, hours.start, hours.end],
        );
      }
      await this.deliveries.rescheduleHeld(manager, userId);
    });
  }
}
