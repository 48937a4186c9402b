import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { AdRewardTransactionsRepository } from '../ads/ad-reward-transactions.repository';
import { Clock } from '../common/clock';
import { JobScheduler } from '../jobs/job-scheduler';
import { PushDeliveriesRepository } from '../push/push-deliveries.repository';
import { StoreNotificationsRepository } from '../subscriptions/store-notifications.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long each kind of record is kept. */
export const RETENTION = {
  /** The push history shows 30 days. */
  pushDeliveriesMs: 30 * DAY_MS,
  /** The stores redeliver a notification for a few days at most. */
  storeNotificationsMs: 30 * DAY_MS,
  /** A callback older than an hour is refused as expired, so its id is not needed for long. */
  adRewardTransactionsMs: 30 * DAY_MS,
} as const;

export interface RetentionRun {
  pushDeliveries: number;
  storeNotifications: number;
  adRewardTransactions: number;
}

/**
 * The daily retention job (cron job `retention` of the job catalog): each table's owner
 * deletes its rows past their retention, in batches, on the instance that leads the job.
 * Every batch is its own statement, and deleting twice changes nothing: a run may finish
 * after a resign.
 */
@Injectable()
export class RetentionService implements OnModuleInit {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    private readonly clock: Clock,
    private readonly deliveries: PushDeliveriesRepository,
    private readonly storeNotifications: StoreNotificationsRepository,
    private readonly adRewards: AdRewardTransactionsRepository,
    private readonly jobs: JobScheduler,
  ) {}

  onModuleInit(): void {
    this.jobs.schedule('retention', { enabled: true, run: () => this.runOnce() });
  }
  /** Deletes everything past its retention now; answers how many rows of each table went. */
  async runOnce(): Promise<RetentionRun> {
    const now = this.clock.nowMs();
    const run: RetentionRun = {
      pushDeliveries: await this.deliveries.trimCreatedBefore(new Date(now - RETENTION.pushDeliveriesMs)),
      storeNotifications: await this.storeNotifications.trimReceivedBefore(new Date(now - RETENTION.storeNotificationsMs)),
      adRewardTransactions: await this.adRewards.trimGrantedBefore(new Date(now - RETENTION.adRewardTransactionsMs)),
    };
    this.logger.log(
      `retention: deleted ${run.pushDeliveries} push deliveries, ${run.storeNotifications} store notifications, ` +
        `${run.adRewardTransactions} ad-reward records`,
    );
    return run;
  }
}
