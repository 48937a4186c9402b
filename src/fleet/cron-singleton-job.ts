import type { Logger } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import { KST_TIME_ZONE } from '../common/korea-time';
import { runAsJob } from '../logging/job-context';
import type { SingletonJobName, SingletonJobs } from './singleton-jobs';

/**
 * A cron job that runs on one instance of the fleet: its cron (KST) fires on every
 * instance and runs `run` only on the leader of the singleton job `name`. A tick that
 * comes while the previous run is still going is skipped. Losing the
 * lead lets a run in progress finish: such runs are idempotent, one transaction or one
 * statement at a time. The owning service calls `register` from onModuleInit, `start`
 * from onApplicationBootstrap and `stop` from onApplicationShutdown.
 */
export class CronSingletonJob {
  private cron?: CronJob;
  private running?: Promise<unknown>;

  constructor(private readonly spec: { name: SingletonJobName; cronTime: string; run: () => Promise<unknown>; logger: Logger }) {}

  register(singletonJobs: SingletonJobs): void {
    singletonJobs.register({
      name: this.spec.name,
      lead: () => undefined,
      resign: async () => {
        await this.running;
      },
    });
  }

  start(scheduler: SchedulerRegistry, singletonJobs: SingletonJobs): void {
    const { name, cronTime, run, logger } = this.spec;
    this.cron = CronJob.from({
      cronTime,
      timeZone: KST_TIME_ZONE,
      onTick: () => {
        if (!singletonJobs.isLeading(name) || this.running) return;
        this.running = runAsJob(name, run)
          .catch((error: unknown) => logger.error(`${name} failed: ${String(error)}`))
          .finally(() => {
            this.running = undefined;
          });
      },
      start: true,
    });
    scheduler.addCronJob(`singleton-${name}`, this.cron);
  }

  stop(): void {
    void this.cron?.stop();
  }
}
