import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * Owner of table analysis_scheduler_settings: the only writer. The pause state an
 * operator set for the whole fleet; none until the first pause or resume, and then
 * it outlives every restart.
 */
@Injectable()
export class SchedulerSettingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** true: paused, false: running, null: never set (each instance follows ANALYSIS_SCHEDULER_AUTO_START). */
  async paused(): Promise<boolean | null> {
    const rows: { paused: boolean }[] = await this.dataSource.query('SELECT paused FROM analysis_scheduler_settings');
    return rows[0]?.paused ?? null;
  }

  async setPaused(paused: boolean): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO analysis_scheduler_settings (id, paused) VALUES (true, $1)
       ON CONFLICT (id) DO UPDATE SET paused = $1, updated_at = now()`,
      [paused],
    );
  }
}
