import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import { Clock } from '../common/clock';
import { KST_TIME_ZONE } from '../common/korea-time';
import type { FleetConfig } from '../fleet/fleet.config';
import type { JobsConfig } from './jobs.config';
import { InjectConfig } from '../config/config.module';
import { InstanceIdentity } from '../fleet/instance-identity';
import { SingletonJobs } from '../fleet/singleton-jobs';
import { runAsJob } from '../logging/job-context';
import { jobDeclaration, type CronJobName, type JobName, type LoopJobName, type QueueJobName, type RunJobName } from './job-catalog';
import { JobStatesRepository } from './job-states.repository';
import { JobRunExecutor, type JobRunWork } from './runs/job-run-executor';
import { JobRunsRepository } from './runs/job-runs.repository';
import { inJobSpan } from '../tracing/job-span';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool';

/** How often a queue's latest success and error reach job_states, at most. */
export const QUEUE_REPORT_MS = 5_000;

/** The work of a job that runs on a schedule on one instance. */
export interface ScheduledWork {
  /** Off: the job is not registered at all on this instance (JobScheduler.isEnabled says so). */
  enabled: boolean;
  run(): Promise<unknown>;
  /** Loop jobs: the delay before the next run, asked after each run. */
  nextDelayMs?(): number;
  /** This instance now runs the job (a log line, say). */
  onLead?(): void;
  /** Logs a failed run the job's own way; by default one warning with the error. */
  logFailure?(error: unknown): void;
}

export interface RunWork extends JobRunWork {
  /** Runs first when this instance becomes the leader (e.g. start a first run). */
  onLead?(): Promise<void>;
  /** The job's cron, when its declaration has one: what each tick does (e.g. start a run). */
  onSchedule?: { enabled: boolean; run(): Promise<unknown> };
}

export type QueueWork<Job> = Omit<WorkerPoolOptions<Job>, 'name' | 'pollIntervalMs' | 'workerId'>;

/** What this instance knows of a job beyond job_states: for the admin list. */
export interface LocalJobView {
  enabled: boolean;
  /** Its time-based schedule runs here (cron, loop, a queue claiming); on-demand runs work either way. */
  scheduled: boolean;
  /** Effective concurrency (a queue's setting), when known here. */
  concurrency?: number;
  /** A queue: its jobs running on this instance now. */
  active?: number;
}

/**
 * Runs every background job the catalog declares (src/jobs/job-catalog.ts), from the work
 * the features register in their onModuleInit:
 *   - cron and loop jobs (`schedule`) on the instance that leads them (SingletonJobs): a
 *     cron in Asia/Seoul, or a loop whose next run is asked after each run; runs never overlap;
 *   - checkpointed runs (`runs`) through a JobRunExecutor on the leader, with the job's cron if it has one;
 *   - queues (`queue`) through a WorkerPool on every instance.
 * Each run is a job in the logs (runAsJob) and is recorded in job_states.
 */
@Injectable()
export class JobScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly local = new Map<JobName, () => LocalJobView>();
  private readonly queueReports = new Map<QueueJobName, { succeededAt: Date | null; error: { message: string; at: Date } | null }>();
  private reportTimer?: NodeJS.Timeout;

  constructor(
    @InjectConfig() private readonly config: { fleet: FleetConfig; jobs: JobsConfig },
    private readonly leadership: SingletonJobs,
    private readonly identity: InstanceIdentity,
    private readonly states: JobStatesRepository,
    private readonly jobRuns: JobRunsRepository,
    private readonly registry: SchedulerRegistry,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.reportTimer = setInterval(() => void this.reportQueues(), QUEUE_REPORT_MS);
    this.reportTimer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.reportTimer);
    await this.reportQueues();
  }

  /** What this instance knows of the job, or undefined when nothing registered it here. */
  localView(name: JobName): LocalJobView | undefined {
    return this.local.get(name)?.();
  }

  /** A cron or loop job of one instance. Call from onModuleInit. */
  schedule(name: CronJobName | LoopJobName, work: ScheduledWork): void {
    this.local.set(name, () => ({ enabled: work.enabled, scheduled: work.enabled }));
    if (!work.enabled) return;
    const runner = new ScheduledRunner(name, work, this.recorder(name), this.logger);
    this.leadership.register({
      name,
      lockKey: jobDeclaration(name).lockKey,
      lead: () => {
        work.onLead?.();
        this.startTimers(name, runner);
      },
      resign: () => this.stopTimers(name, runner),
    });
  }

  /** A job whose runs are checkpointed in job_runs, executed on the instance that leads it. Call from a constructor or onModuleInit. */
  runs(name: RunJobName, work: RunWork): JobRunExecutor {
    const executor = new JobRunExecutor(name, this.jobRuns, work, {
      leaderTakeoverMs: this.config.fleet.leaderTakeoverMs,
      progressLogMs: this.config.jobs.progressLogMs,
    });
    const scheduled = work.onSchedule;
    const runner = scheduled?.enabled ? new ScheduledRunner(name, { ...scheduled }, this.recorder(name), this.logger) : undefined;
    this.local.set(name, () => ({ enabled: true, scheduled: scheduled?.enabled ?? false }));
    this.leadership.register({
      name,
      lockKey: jobDeclaration(name).lockKey,
      lead: async () => {
        try {
          await work.onLead?.();
        } catch (error) {
          this.logger.error({ err: error }, `${name}: taking the lead failed`);
        }
        if (runner) this.startTimers(name, runner);
        await executor.lead();
      },
      resign: async () => {
        if (runner) await this.stopTimers(name, runner);
        await executor.resign();
      },
    });
    return executor;
  }

  /** A queue worked on every instance, by up to `concurrency` jobs at once. */
  queue<Job>(name: QueueJobName, work: QueueWork<Job>): WorkerPool<Job> {
    const declaration = jobDeclaration(name);
    const noteError = (error: unknown) => {
      this.report(name).error = { message: error instanceof Error ? error.message : String(error), at: this.clock.now() };
    };
    const pool = new WorkerPool<Job>({
      ...work,
      name,
      workerId: this.identity.id,
      pollIntervalMs: declaration.schedule.pollIntervalMs,
      work: async (job) => {
        await work.work(job);
        this.report(name).succeededAt = this.clock.now();
      },
      onClaimError: (error) => {
        noteError(error);
        work.onClaimError(error);
      },
      onWorkError: (job, error) => {
        noteError(error);
        work.onWorkError(job, error);
      },
    });
    this.local.set(name, () => ({ enabled: true, scheduled: pool.isRunning, concurrency: work.concurrency, active: pool.active }));
    return pool;
  }

  private report(name: QueueJobName): { succeededAt: Date | null; error: { message: string; at: Date } | null } {
    let report = this.queueReports.get(name);
    if (!report) this.queueReports.set(name, (report = { succeededAt: null, error: null }));
    return report;
  }

  /** Writes each queue's news since the last report, if any. */
  private async reportQueues(): Promise<void> {
    for (const [name, report] of this.queueReports) {
      if (report.succeededAt === null && report.error === null) continue;
      this.queueReports.delete(name);
      try {
        await this.states.queueReport(name, report);
      } catch (error) {
        // The next report carries newer news anyway.
        this.logger.warn({ err: error }, `${name}: activity not recorded`);
      }
    }
  }

  private startTimers(name: JobName, runner: ScheduledRunner): void {
    const schedule = jobDeclaration(name).schedule;
    if (schedule.kind === 'cron') {
      const cron = CronJob.from({ cronTime: schedule.cron, timeZone: KST_TIME_ZONE, onTick: () => runner.tick(), start: true });
      this.registry.addCronJob(`job-${name}`, cron);
    } else if (schedule.kind === 'loop') {
      runner.startLoop();
    }
  }

  private async stopTimers(name: JobName, runner: ScheduledRunner): Promise<void> {
    if (this.registry.doesExist('cron', `job-${name}`)) this.registry.deleteCronJob(`job-${name}`);
    await runner.stop();
  }

  private recorder(name: JobName): RunRecorder {
    return {
      // A run is never failed by its record: the list of jobs only shows it late.
      started: async (at) => {
        await this.states
          .started(name, this.identity.id, at)
          .catch((error: unknown) => this.logger.warn({ err: error }, `${name}: start not recorded`));
      },
      finished: async (run) => {
        await this.states
          .finished(name, this.identity.id, run)
          .catch((error: unknown) => this.logger.warn({ err: error }, `${name}: end not recorded`));
      },
      now: () => this.clock.now(),
    };
  }
}

interface RunRecorder {
  started(at: Date): Promise<void>;
  finished(run: { startedAt: Date; finishedAt: Date; error?: string; nextRunAt?: Date | null }): Promise<void>;
  now(): Date;
}

/**
 * Runs one scheduled job on its leader: a cron tick runs it unless a run is still going;
 * a loop runs it, then again after the delay the job asks for. Stopping cancels the next
 * run and waits for the one in progress (runs are idempotent, so it may finish after a resign).
 */
class ScheduledRunner {
  private running?: Promise<void>;
  private loopTimer?: NodeJS.Timeout;
  private looping = false;
  /** Which lead the loop's timers belong to: a run of an earlier lead that ends late schedules nothing. */
  private generation = 0;
  /** A loop's delay before its next run, asked once at the end of each run. */
  private nextDelayMs = 0;

  constructor(
    private readonly name: JobName,
    private readonly work: Pick<ScheduledWork, 'run' | 'nextDelayMs' | 'logFailure'>,
    private readonly recorder: RunRecorder,
    private readonly logger: Logger,
  ) {}

  tick(): void {
    if (this.running) return;
    this.running = runAsJob(this.name, () => inJobSpan(this.name, () => this.runOnce(false))).finally(() => (this.running = undefined));
  }

  startLoop(): void {
    if (this.looping) return;
    this.looping = true;
    const generation = ++this.generation;
    // Led again while the last run of an earlier lead still goes: the loop starts after it.
    void Promise.resolve(this.running).then(() => this.next(0, generation));
  }

  async stop(): Promise<void> {
    this.looping = false;
    clearTimeout(this.loopTimer);
    await this.running;
  }

  private next(delayMs: number, generation: number): void {
    if (!this.looping || generation !== this.generation) return;
    this.loopTimer = setTimeout(() => {
      this.running = runAsJob(this.name, () => inJobSpan(this.name, () => this.runOnce(true))).finally(() => {
        this.running = undefined;
        this.next(this.nextDelayMs, generation);
      });
    }, delayMs);
    this.loopTimer.unref();
  }

  private async runOnce(loop: boolean): Promise<void> {
    const startedAt = this.recorder.now();
    // A loop runs every few seconds: its start is not worth a write of its own.
    if (!loop) await this.recorder.started(startedAt);
    let error: string | undefined;
    try {
      await this.work.run();
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
      if (this.work.logFailure) this.work.logFailure(failure);
      else this.logger.warn({ err: failure }, `${this.name} failed`);
    }
    const finishedAt = this.recorder.now();
    if (loop) this.nextDelayMs = this.work.nextDelayMs!();
    const nextRunAt = loop && this.looping ? new Date(finishedAt.getTime() + this.nextDelayMs) : null;
    await this.recorder.finished({ startedAt, finishedAt, error, nextRunAt });
  }
}
