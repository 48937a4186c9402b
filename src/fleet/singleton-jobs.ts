import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';

/** Every job that runs on exactly one instance of the fleet at a time. */
export const SINGLETON_JOB_NAMES = ['disclosure-monitor', 'stock-sync', 'backfill', 'downgrade-cleanup', 'rate-limit-sweep'] as const;
export type SingletonJobName = (typeof SINGLETON_JOB_NAMES)[number];

/** A job that the fleet runs on one instance: the one that holds its lock. */
export interface SingletonJob {
  readonly name: SingletonJobName;
  /** This instance now runs the job (resume interrupted work, start timers). */
  lead(): void | Promise<void>;
  /** This instance no longer runs it (shutdown, lost database connection): stop at once. */
  resign(): void | Promise<void>;
}

/**
 * Leadership of the singleton jobs. Jobs register in `onModuleInit`; leadership is
 * decided from `onApplicationBootstrap` on (a single instance leads every job once
 * the application has started) and given up before the application shuts down.
 *
 * PLACEHOLDER: leads every registered job; the advisory-lock election replaces the internals.
 */
@Injectable()
export class SingletonJobs implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SingletonJobs.name);
  private readonly jobs = new Map<SingletonJobName, SingletonJob>();
  private readonly leading = new Set<SingletonJobName>();

  register(job: SingletonJob): void {
    if (this.jobs.has(job.name)) throw new Error(`singleton job ${job.name} registered twice`);
    this.jobs.set(job.name, job);
  }

  isLeading(name: SingletonJobName): boolean {
    return this.leading.has(name);
  }

  /** The jobs this instance runs now. */
  held(): SingletonJobName[] {
    return [...this.leading].sort();
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const job of this.jobs.values()) {
      this.leading.add(job.name);
      await job.lead();
    }
    this.logger.log(`singleton jobs held by this instance: ${this.held().join(', ') || 'none'}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const name of this.held()) {
      this.leading.delete(name);
      await this.jobs.get(name)!.resign();
    }
  }
}
