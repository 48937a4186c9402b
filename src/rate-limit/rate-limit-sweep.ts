import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { RateLimitConfig } from './rate-limit.config';
import { InjectConfig } from '../config/config.module';
import { JobScheduler } from '../jobs/job-scheduler';
import { PostgresBucketStore } from './postgres-bucket-store';

/** Rows deleted per statement, so a sweep never holds many row locks or a long statement. */
export const SWEEP_BATCH_SIZE = 1_000;
/** A bucket is swept once it has been full this long, well clear of any take in flight. */
export const SWEEP_MARGIN_SECONDS = 60;

/**
 * The cron job 'rate-limit-sweep' of the job catalog: every minute, on the instance that
 * leads it, deletes the shared buckets nobody has used since they filled up again (such a
 * row is the same as no row), in batches. Without it the table would keep one row per
 * client ever seen. Only with RATE_LIMIT_STORE=postgres.
 */
@Injectable()
export class RateLimitSweep implements OnModuleInit {
  private readonly logger = new Logger('RateLimit');

  constructor(
    private readonly store: PostgresBucketStore,
    private readonly jobs: JobScheduler,
    @InjectConfig() private readonly config: RateLimitConfig,
  ) {}

  onModuleInit(): void {
    // A failed sweep waits for the next minute: idle rows only cost space meanwhile.
    this.jobs.schedule('rate-limit-sweep', { enabled: this.config.rateLimitStore === 'postgres', run: () => this.sweep() });
  }

  /** One sweep: batches until one comes back short; answers how many buckets went. */
  async sweep(): Promise<number> {
    let swept = 0;
    for (;;) {
      const deleted = await this.store.sweepIdle(SWEEP_BATCH_SIZE, SWEEP_MARGIN_SECONDS);
      swept += deleted;
      if (deleted < SWEEP_BATCH_SIZE) break;
    }
    if (swept > 0) this.logger.debug(`swept ${swept} idle rate-limit buckets`);
    return swept;
  }
}
