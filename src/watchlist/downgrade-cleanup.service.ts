import { DAILY_JOB_TIMES, dailyCron } from '../fleet/daily-job-times';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { DailySingletonJob } from '../fleet/daily-singleton-job';
import { SingletonJobs } from '../fleet/singleton-jobs';
import { WatchlistService } from './watchlist.service';
import { TierTransitions } from '../subscriptions/tier-transitions';
import { UsersRepository } from '../users/users.repository';

/** How long a downgraded user keeps the watch entries above the new capacity. */
export const DOWNGRADE_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The downgrade cleanup. Runs for one user on every watchlist read, and for everyone
 * in a daily job. Both first record expiries nobody reported yet (premium_until passed,
 * stored tier not `none`) with the moment they observe them (see TierTransitions), then
 * trim the users whose downgrade is at least 7 days old and clear their moment.
 * The trim decides by the tier active when it runs, so an upgrade in between (which
 * also clears the moment) removes nothing.
 * The daily job is the singleton job 'downgrade-cleanup': its cron fires on every
 * instance, and runs only on the one that leads it.
 */
@Injectable()
export class DowngradeCleanupService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DowngradeCleanupService.name);
  // Daily; the per-read check keeps each user right in between.
  private readonly daily = new DailySingletonJob({ name: 'downgrade-cleanup', cronTime: dailyCron(DAILY_JOB_TIMES.downgradeCleanup), run: () => this.runAll(), logger: this.logger });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly transitions: TierTransitions,
    private readonly users: UsersRepository,
    private readonly watchlist: WatchlistService,
    private readonly scheduler: SchedulerRegistry,
    private readonly singletonJobs: SingletonJobs,
  ) {}

  onModuleInit(): void {
    // A run in progress finishes on resign: each user is settled in its own transaction, and settling twice changes nothing.
    this.daily.register(this.singletonJobs);
  }

  onApplicationBootstrap(): void {
    this.daily.start(this.scheduler, this.singletonJobs);
  }

  onApplicationShutdown(): void {
    this.daily.stop();
  }

  /** One user's pending expiry and cleanup; returns how many watch entries were removed. */
  async settle(userId: number): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      await this.transitions.expireLapsed(manager, userId);
      // Clearing the moment is conditional on it being due; only the transaction that
      // cleared it trims, under the user's row lock that expireLapsed already holds.
      const cleared = await this.users.clearDueDowngrade(manager, userId, new Date(this.clock.nowMs() - DOWNGRADE_GRACE_MS));
      const removed = cleared ? await this.watchlist.trimToCapacity(userId, manager) : 0;
      return removed;
    });
  }

  /** Every user with a lapsed subscription or a due cleanup; returns users settled. */
  async runAll(): Promise<number> {
    const now = this.clock.now();
    const userIds = await this.users.findLapsedOrDue(now, new Date(now.getTime() - DOWNGRADE_GRACE_MS));
    for (const id of userIds) await this.settle(id);
    return userIds.length;
  }
}
