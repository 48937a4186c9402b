import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { SingletonJobs } from '../fleet/singleton-jobs';
import { PostgresBucketStore } from './postgres-bucket-store';

/** How often the leader sweeps. */
export const SWEEP_INTERVAL_MS = 60_000;
/** Rows deleted per statement, so a sweep never holds many row locks or a long statement. */
export const SWEEP_BATCH_SIZE = 1_000;
/** A bucket is swept once it has been full this long, well clear of any take in flight. */
export const SWEEP_MARGIN_SECONDS = 60;

/**
 * The singleton job 'rate-limit-sweep': on the instance that leads it, deletes the
 * shared buckets nobody has used since they filled up again (such a row is the same
 * as no row), every minute, in batches. Without it the table would keep one row per
 * client ever seen. Only with RATE_LIMIT_STORE=postgres.
 */
@Injectable()
export class RateLimitSweep implements OnModuleInit {
  private readonly logger = new Logger('RateLimit');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private leading = false;

  constructor(
    private readonly store: PostgresBucketStore,
    private readonly jobs: SingletonJobs,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.rateLimitStore !== 'postgres') return;
    this.jobs.register({ name: 'rate-limit-sweep', lead: () => this.lead(), resign: () => this.resign() });
  }

  private lead(): void {
    this.leading = true;
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    // A pending sweep alone never keeps the process alive.
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep in flight, which stops after its current batch. */
  private async resign(): Promise<void> {
    this.leading = false;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One sweep: batches until one comes back short. Overlapping ticks share the sweep in flight. */
  sweep(): Promise<void> {
    this.running ??= this.sweepBatches().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepBatches(): Promise<void> {
    let swept = 0;
    try {
      for (;;) {
        const deleted = await this.store.sweepIdle(SWEEP_BATCH_SIZE, SWEEP_MARGIN_SECONDS);
        swept += deleted;
        if (deleted < SWEEP_BATCH_SIZE || !this.leading) break;
      }
      if (swept > 0) this.logger.debug(`swept ${swept} idle rate-limit buckets`);
    } catch (error) {
      // The next tick tries again; idle rows only cost space meanwhile.
      this.logger.warn({ err: error }, 'rate-limit sweep failed');
    }
  }
}
