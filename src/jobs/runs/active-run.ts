import type { LoggerService } from '@nestjs/common';
import type { JobRun, JobRunProgress, JobRunsRepository } from './job-runs.repository';

/** How often progress (and with it the executor's heartbeat, `updated_at`) is written. */
export const PROGRESS_WRITE_MS = 1_000;

/** Thrown inside a run's work when it was asked to stop (resign, shutdown, taken over). */
export class RunStopped extends Error {
  constructor() {
    super('stopped: the run is handed to the next executor');
  }
}

/**
 * A run this instance executes: the counters the work moves, written to job_runs
 * about once a second and at every phase change, in one statement with the
 * checkpoint. `stop()` asks the work to end at its next safe point.
 */
export class ActiveRun {
  readonly id: number;
  readonly params: Record<string, unknown>;
  /** The checkpoint the run was resumed from; null on a fresh start. */
  readonly resumedFrom: Record<string, unknown> | null;
  /** Was this run executed before (by another instance, or before a restart)? */
  readonly resumed: boolean;
  readonly startedAt: Date;

  phase: string;
  total: number | null;
  processed: number;
  failed: number;
  /** Merged into the stored counts: a counter the work keeps in its own transactions (JobRunsRepository.addToCount) is deleted here. */
  counts: Record<string, number>;
  checkpoint: Record<string, unknown> | null;
  lastError: string | null;

  private stopRequested = false;
  private readonly stopListeners = new Set<() => void>();
  private writing: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private progressTimer?: NodeJS.Timeout;
  /** Where this executor took the run up: the rate in the progress line is its own. */
  private beganAt = 0;
  private processedAtBegin = 0;

  constructor(
    row: JobRun,
    private readonly jobRuns: JobRunsRepository,
    private readonly logger: Pick<LoggerService, 'log' | 'warn'>,
    private readonly progressLogMs: number,
  ) {
    this.id = row.id;
    this.params = row.params;
    this.resumedFrom = row.phase === null ? null : row.checkpoint;
    this.resumed = row.phase !== null;
    this.startedAt = row.startedAt;
    this.phase = row.phase ?? 'starting';
    this.total = row.total;
    this.processed = row.processed;
    this.failed = row.failed;
    this.counts = { ...row.counts };
    this.checkpoint = row.checkpoint;
    this.lastError = row.lastError;
  }

  get stopped(): boolean {
    return this.stopRequested;
  }

  /** Throws RunStopped once a stop was asked: call it at every safe point. */
  throwIfStopped(): void {
    if (this.stopRequested) throw new RunStopped();
  }

  /** Waits `ms`, or less when the run is stopped meanwhile. */
  async pause(ms: number): Promise<void> {
    if (ms <= 0 || this.stopRequested) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stopListeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stopListeners.add(done);
    });
  }

  stop(): void {
    this.stopRequested = true;
    for (const listener of [...this.stopListeners]) listener();
  }

  /** Starts the periodic writes and progress lines; the first write marks the run as executed (its phase). */
  async begin(): Promise<void> {
    this.beganAt = performance.now();
    this.processedAtBegin = this.processed;
    await this.save();
    // A failed periodic write is retried by the next one; the run goes on.
    this.timer = setInterval(
      () => this.save().catch((error: unknown) => this.logger.warn({ err: error }, `run ${this.id}: progress not saved`)),
      PROGRESS_WRITE_MS,
    );
    this.timer.unref();
    this.progressTimer = setInterval(() => this.logger.log(this.progressLine()), this.progressLogMs);
    this.progressTimer.unref();
  }

  /** What the operator reads every JOB_PROGRESS_LOG_MS: `phase 340/1200 (28%), 2 failed, 11.3/s, about 76 s left`. */
  progressLine(): string {
    const seconds = (performance.now() - this.beganAt) / 1000;
    const rate = seconds > 0 ? (this.processed - this.processedAtBegin) / seconds : 0;
    const parts = [
      this.total === null
        ? `${this.phase}: ${this.processed} processed (total not known yet)`
        : `${this.phase}: ${this.processed}/${this.total} (${this.total === 0 ? 100 : Math.floor((this.processed / this.total) * 100)}%)`,
      `${this.failed} failed`,
      `${rate.toFixed(1)}/s`,
    ];
    if (this.total !== null && rate > 0) parts.push(`about ${Math.ceil(Math.max(0, this.total - this.processed) / rate)} s left`);
    const line = `run ${this.id} ${parts.join(', ')}`;
    return this.lastError === null ? line : `${line}; last error: ${this.lastError}`;
  }

  /** A new phase is written at once. */
  async enterPhase(phase: string): Promise<void> {
    this.phase = phase;
    await this.save();
  }

  /** Writes the progress now (queued behind a write in flight). A run taken over by another executor is stopped. */
  async save(): Promise<void> {
    await this.queue(async () => {
      if (!(await this.jobRuns.saveProgress(this.id, this.snapshot()))) this.stop();
    });
  }

  async complete(): Promise<boolean> {
    return this.end((progress) => this.jobRuns.finish(this.id, 'completed', progress));
  }

  async fail(reason: string): Promise<boolean> {
    this.lastError = reason;
    return this.end((progress) => this.jobRuns.finish(this.id, 'failed', progress));
  }

  /** Leaves the run `running` with its checkpoint, for the next executor. */
  async release(): Promise<boolean> {
    return this.end((progress) => this.jobRuns.release(this.id, progress));
  }

  /** Counters and checkpoint as one consistent value (taken synchronously). */
  snapshot(): JobRunProgress {
    return {
      phase: this.phase,
      total: this.total,
      processed: this.processed,
      failed: this.failed,
      counts: { ...this.counts },
      checkpoint: this.checkpoint === null ? null : structuredClone(this.checkpoint),
      lastError: this.lastError,
    };
  }

  private async end(write: (progress: JobRunProgress) => Promise<boolean>): Promise<boolean> {
    clearInterval(this.timer);
    clearInterval(this.progressTimer);
    let written = false;
    await this.queue(async () => {
      written = await write(this.snapshot());
    });
    return written;
  }

  /** One write at a time, in order; a failed write is reported to its caller only. */
  private queue(write: () => Promise<void>): Promise<void> {
    const next = this.writing.then(write);
    this.writing = next.catch(() => undefined);
    return next;
  }
}
