import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { JobScheduler } from '../jobs/job-scheduler';
import { WatchlistService } from './watchlist.service';
import { TierTransitions } from '../subscriptions/tier-transitions';
import { UsersRepository } from '../users/users.repository';

/** How long a downgraded user keeps the watch entries above the new capacity. */
export const DOWNGRADE_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The downgrade cleanup. Runs for one user on every watchlist read, and for everyone
 * in a sweep every minute. Both first record lapses nobody reported yet (premium_until
 * passed, stored tier not `none`: the tier is derived again from the purchases still in
 * force, and a drop dates from premium_until, see TierTransitions), then trim the users
 * whose downgrade is at least 7 days old and clear their moment. The trim decides by the
 * tier active when it runs, so an upgrade in between removes nothing above it.
 * The sweep is the cron job 'downgrade-cleanup' of the job catalog, every minute on the
 * instance that leads it, so a lapse is recorded and a cleanup runs when due, not the next
 * day; its query reads two partial indexes and finds nobody on most ticks.
 */
@Injectable()
export class DowngradeCleanupService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly transitions: TierTransitions,
    private readonly users: UsersRepository,
    private readonly watchlist: WatchlistService,
    private readonly jobs: JobScheduler,
  ) {}

  onModuleInit(): void {
    // A run in progress finishes on resign: each user is settled in its own transaction, and settling twice changes nothing.
    this.jobs.schedule('downgrade-cleanup', { enabled: true, run: () => this.runAll() });
  }

  /** One user's pending expiry and cleanup; returns how many watch entries were removed. */
  async settle(userId: number): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      await this.transitions.settleLapse(manager, userId);
      // Clearing the moment is conditional on it being due; only the transaction that
      // cleared it trims, under the user's row lock that settleLapse already holds.
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
