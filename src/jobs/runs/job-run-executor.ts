import { Logger } from '@nestjs/common';
import { runAsJob } from '../../logging/job-context';
import { ActiveRun, PROGRESS_WRITE_MS, RunStopped } from './active-run';
import type { JobRunKind } from './job-run.entity';
import { inJobSpan } from '../../tracing/job-span';
import type { JobRunsRepository } from './job-runs.repository';

/** How often the leader looks for a run nobody executes (started on another instance, or orphaned). */
export const PICK_UP_INTERVAL_MS = 1_000;

export interface JobRunWork {
  /** Does the work of `run`, resuming from `run.resumedFrom`; throws to fail it. Checks `run.stopped` at safe points. */
  execute(run: ActiveRun): Promise<void>;
  /** A failure as the status shows it. */
  describeFailure(error: unknown): string;
}

/**
 * Executes the runs of one kind on the instance that leads the singleton job of that
 * kind (JobScheduler.runs registers it): a run started anywhere is picked up within a second, a run left by a previous
 * leader is resumed from its checkpoint, and on resign or shutdown the run stops at a
 * safe point and is handed over (still `running`), so no run is silently lost.
 */
export class JobRunExecutor {
  private readonly logger: Logger;
  private leading = false;
  private timer?: NodeJS.Timeout;
  private current?: { run?: ActiveRun; done: Promise<void> };
  private readonly staleMs: number;
  private readonly progressLogMs: number;

  constructor(
    private readonly kind: JobRunKind,
    private readonly jobRuns: JobRunsRepository,
    private readonly work: JobRunWork,
    timing: {
      /** LEADER_TAKEOVER_MS: a run whose executor wrote nothing for this long (at least 5 progress writes) is taken over. */
      leaderTakeoverMs: number;
      /** JOB_PROGRESS_LOG_MS: one progress line this often while a run executes. */
      progressLogMs: number;
    },
  ) {
    this.logger = new Logger(`JobRunsRepository:${kind}`);
    // Never less than a few missed heartbeats: a slow write must not look like a dead instance.
    this.staleMs = Math.max(timing.leaderTakeoverMs, 5 * PROGRESS_WRITE_MS);
    this.progressLogMs = timing.progressLogMs;
  }

  get isLeading(): boolean {
    return this.leading;
  }

  async lead(): Promise<void> {
    if (this.leading) return;
    this.leading = true;
    this.timer = setInterval(() => void this.pickUp(), PICK_UP_INTERVAL_MS);
    this.timer.unref();
    await this.pickUp();
  }

  async resign(): Promise<void> {
    this.leading = false;
    clearInterval(this.timer);
    await this.stop();
  }

  /**
   * Executes the running run of the kind if nobody does; at once after a start on
   * this instance, every second while leading.
   */
  async pickUp(): Promise<void> {
    if (!this.leading || this.current) return;
    const slot: { run?: ActiveRun; done: Promise<void> } = { done: Promise.resolve() };
    this.current = slot;
    // Started by an admin request or by the timer: either way the run logs as itself.
    slot.done = runAsJob(this.kind, () => this.claimAndExecute(slot)).finally(() => {
      if (this.current === slot) this.current = undefined;
    });
    await slot.done;
  }

  /** Stops the run in progress at its next safe point and waits for its checkpoint to be written. */
  async stop(): Promise<void> {
    const current = this.current;
    if (!current) return;
    current.run?.stop();
    await current.done;
  }

  private async claimAndExecute(slot: { run?: ActiveRun }): Promise<void> {
    let run: ActiveRun;
    try {
      const row = await this.jobRuns.claim(this.kind, this.staleMs);
      if (!row) return;
      run = new ActiveRun(row, this.jobRuns, this.logger, this.progressLogMs);
    } catch (error) {
      this.logger.warn({ err: error }, `looking for a ${this.kind} run failed`);
      return;
    }
    slot.run = run;
    // Resigned while claiming: hand it straight back.
    if (!this.leading) run.stop();
    // Every line of the run carries its id (`backfill-run-12`), whichever instance executes it.
    await runAsJob(this.kind, () => inJobSpan(this.kind, () => this.execute(run), { 'job.run_id': run.id }), `${this.kind}-run-${run.id}`);
  }

  private async execute(run: ActiveRun): Promise<void> {
    this.logger.log(`${this.kind} run ${run.id} ${run.resumed ? `resumed at phase ${run.phase}` : 'started'}`);
    try {
      await run.begin();
      await this.work.execute(run);
      if (await run.complete()) {
        this.logger.log(`${this.kind} run ${run.id} completed: ${run.processed} processed, ${run.failed} failed`);
      }
    } catch (error) {
      await this.settle(run, error);
    }
  }

  private async settle(run: ActiveRun, error: unknown): Promise<void> {
    try {
      if (run.stopped || error instanceof RunStopped) {
        const released = await run.release();
        this.logger.log(
          released
            ? `${this.kind} run ${run.id} stopped at phase ${run.phase} (${run.processed} processed); the next leader resumes it`
            : `${this.kind} run ${run.id} was taken over by another instance`,
        );
        return;
      }
      const description = this.work.describeFailure(error);
      this.logger.error({ err: error }, `${this.kind} run ${run.id} failed: ${description}`);
      await run.fail(description);
    } catch (writeError) {
      // The row stays running with its last checkpoint; the next executor resumes it once it looks stale.
      this.logger.error({ err: writeError }, `${this.kind} run ${run.id}: final state not saved`);
    }
  }
}
