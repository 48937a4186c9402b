import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { AppError } from '../common/errors/app-error';
import { StockSyncService } from './stock-sync.service';
import { Stocks } from './stocks';

/** 05:00 every day, Korea Standard Time. */
export const DAILY_STOCK_SYNC_CRON = '0 0 5 * * *';

/** The daily incremental stock sync, when STOCK_SYNC_SCHEDULER_ENABLED is true. */
@Injectable()
export class StockSyncJob implements OnApplicationBootstrap {
  private readonly logger = new Logger(StockSyncJob.name);

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
    private readonly sync: StockSyncService,
    private readonly stocks: Stocks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { stockSyncSchedulerEnabled, stockSyncBootstrap } = this.config.jobs;
    if (stockSyncBootstrap && (await this.stocks.isEmpty())) {
      this.logger.log('the stock master is empty: starting a bootstrap sync');
      this.sync.start('bootstrap');
    }
    if (!stockSyncSchedulerEnabled) return;
    const job = CronJob.from({
      cronTime: DAILY_STOCK_SYNC_CRON,
      timeZone: 'Asia/Seoul',
      onTick: () => this.runDaily(),
      start: true,
    });
    this.scheduler.addCronJob('daily-stock-sync', job);
    this.logger.log(`daily incremental stock sync scheduled at 05:00 KST (next ${job.nextDate().toISO()})`);
  }

  runDaily(): void {
    try {
      this.sync.start('incremental');
    } catch (error) {
      if (error instanceof AppError && error.code === 'STOCK_SYNC_RUNNING') {
        this.logger.warn('daily stock sync skipped: a sync is already running');
      } else {
        throw error;
      }
    }
  }
}
