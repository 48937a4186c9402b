import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { AppError } from '../common/errors/app-error';
import { KST_TIME_ZONE } from '../common/korea-time';
import { DAILY_JOB_TIMES, dailyCron } from '../fleet/daily-job-times';
import { StockSyncService } from './stock-sync.service';

/**
 * The daily incremental stock sync, when STOCK_SYNC_SCHEDULER_ENABLED is true. The
 * cron fires on every instance; only the one leading 'stock-sync' starts the sync
 * (and job_runs refuses a second one anyway). The boot-time bootstrap of an empty
 * master is StockSyncService's, on taking the lead.
 */
@Injectable()
export class StockSyncJob implements OnApplicationBootstrap {
  private readonly logger = new Logger(StockSyncJob.name);

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
    private readonly sync: StockSyncService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.jobs.stockSyncSchedulerEnabled) return;
    const job = CronJob.from({
      cronTime: dailyCron(DAILY_JOB_TIMES.stockSync),
      timeZone: KST_TIME_ZONE,
      onTick: () => {
        this.runDaily().catch((error) => this.logger.error(`daily stock sync not started: ${String(error)}`));
      },
      start: true,
    });
    this.scheduler.addCronJob('daily-stock-sync', job);
    this.logger.log(`daily incremental stock sync scheduled at ${DAILY_JOB_TIMES.stockSync} KST (next ${job.nextDate().toISO()})`);
  }

  /** Starts the daily sync if this instance leads the stock sync; returns whether it did. */
  async runDaily(): Promise<boolean> {
    if (!this.sync.isLeading()) return false;
    try {
      await this.sync.start('incremental');
      return true;
    } catch (error) {
      if (error instanceof AppError && error.code === 'STOCK_SYNC_RUNNING') {
        this.logger.warn('daily stock sync skipped: a sync is already running');
        return false;
      }
      throw error;
    }
  }
}
