import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { DISCLOSURE_CREATED } from '../disclosures/disclosure-events';
import type { DartBudgetStatus } from '../upstream/dart/dart-budget';
import { DartError } from '../upstream/dart/dart.types';
import { AnalysisQueue, type ClaimedAnalysis } from './analysis-queue';
import { Analyzer, AnalyzerError } from './analyzers/analyzer';
import { DartClient } from '../upstream/dart/dart-client';
import { extractDocumentText, fitToModel, MAX_MODEL_CHARS } from './document/document-text';

/** How often an idle scheduler looks for work that became claimable (backoffs, expired leases, other instances). */
const POLL_INTERVAL_MS = 5_000;
/** How long a job waits after a failure that is ours, not the filing's (bad keys). */
const CONFIGURATION_RETRY_MS = 5 * 60_000;

export interface SchedulerStatus {
  status: 'running' | 'paused';
  activeThreads: number;
  concurrency: number;
  totalSuccess: number;
  totalFailed: number;
  queued: number;
  lastError: string | null;
  /** The disclosure-system budget; while it is spent nothing is claimed. */
  upstream: DartBudgetStatus;
}

/**
 * Runs up to ANALYSIS_CONCURRENCY analyses at once from the shared queue. New
 * filings wake it at once; a slow poll catches retries whose backoff ended and
 * leases left behind by crashed workers. Pausing lets running analyses finish and
 * claims nothing new.
 */
@Injectable()
export class AnalysisSchedulerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AnalysisSchedulerService.name);
  /** Identifies this instance's leases. */
  readonly workerId = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private state: 'running' | 'paused' = 'paused';
  /** Slots taken, including claims in progress, so concurrent wake-ups never exceed the limit. */
  private active = 0;
  private totalSuccess = 0;
  private totalFailed = 0;
  private lastError: string | null = null;
  private pollTimer?: NodeJS.Timeout;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly queue: AnalysisQueue,
    private readonly dart: DartClient,
    private readonly analyzer: Analyzer,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.jobs.analysisSchedulerAutoStart) this.resume();
  }

  async onApplicationShutdown(): Promise<void> {
    this.pause();
    await this.drain();
  }

  async status(): Promise<SchedulerStatus> {
    return {
      status: this.state,
      activeThreads: this.active,
      concurrency: this.config.ai.concurrency,
      totalSuccess: this.totalSuccess,
      totalFailed: this.totalFailed,
      queued: await this.queue.countQueued(),
      lastError: this.lastError,
      upstream: this.dart.budgetStatus(),
    };
  }

  resume(): void {
    if (this.state === 'running') return;
    this.state = 'running';
    this.logger.log(
      `analysis scheduler running: ${this.config.ai.concurrency} at once with the ${this.analyzer.provider} analyzer (${this.analyzer.model})`,
    );
    this.pollTimer = setInterval(() => this.fill(), POLL_INTERVAL_MS);
    this.pollTimer.unref();
    this.fill();
  }

  pause(): void {
    if (this.state === 'paused') return;
    this.state = 'paused';
    clearInterval(this.pollTimer);
    this.logger.log('analysis scheduler paused: running analyses finish, nothing new is claimed');
  }

  /** Resolves when every running analysis has finished. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  @OnEvent(DISCLOSURE_CREATED)
  onDisclosureCreated(): void {
    this.fill();
  }

  /**
   * Takes a slot and claims a job for it; each successful claim tries the next slot,
   * so a wake-up fills every free slot while there is claimable work.
   */
  fill(): void {
    if (this.state !== 'running' || this.active >= this.config.ai.concurrency) return;
    // No document can be fetched while the daily budget is spent: claiming would only postpone job after job.
    if (this.dart.budgetStatus().exhaustedUntil !== null) return;
    this.active += 1;
    const run = this.runOne().finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
  }

  private async runOne(): Promise<void> {
    let job: ClaimedAnalysis | null;
    try {
      job = await this.queue.claim(this.workerId);
    } catch (error) {
      this.active -= 1;
      this.lastError = `claiming failed: ${describe(error)}`;
      this.logger.error(this.lastError);
      return;
    }
    if (!job) {
      this.active -= 1;
      return;
    }
    this.fill();
    try {
      await this.process(job);
    } catch (error) {
      // Not even the failure could be recorded (database down): the lease expires and the job is claimed again.
      this.lastError = `recording ${job.rceptNo} failed: ${describe(error)}`;
      this.logger.error(this.lastError);
    } finally {
      this.active -= 1;
      this.fill();
    }
  }

  /** One attempt at one filing: document → text → analyzer → stored result. */
  private async process(job: ClaimedAnalysis): Promise<void> {
    try {
      const zip = await this.dart.document(job.rceptNo, 'analysisDocument');
      const { text } = extractDocumentText(zip, job.rceptNo);
      const fitted = fitToModel(text, MAX_MODEL_CHARS);
      const output = await this.analyzer.analyze({
        rceptNo: job.rceptNo,
        corpName: job.corpName,
        reportName: job.reportName,
        rceptDt: job.rceptDt,
        text: fitted.text,
        docLength: text.length,
        truncated: fitted.truncated,
      });
      if (await this.queue.complete(this.workerId, job.rceptNo, { output, docLength: text.length, truncated: fitted.truncated })) {
        this.totalSuccess += 1;
      } else {
        this.logger.warn(`analysis of ${job.rceptNo} finished after its lease was taken over; result dropped`);
      }
    } catch (error) {
      this.totalFailed += 1;
      this.lastError = `${job.rceptNo}: ${describe(error)}`;
      await this.recordFailure(job, error);
    }
  }

  private async recordFailure(job: ClaimedAnalysis, error: unknown): Promise<void> {
    const reason = describe(error);
    // No document (014), or one the disclosure system will never serve us (too large,
    // a request it refuses): asking again cannot help.
    if (error instanceof DartError && (error.kind === 'missing' || error.kind === 'request')) {
      await this.queue.markUnavailable(this.workerId, job.rceptNo, reason);
      this.logger.warn(`analysis of ${job.rceptNo}: no usable document (${reason}); UNAVAILABLE`);
      return;
    }
    // The budget is spent or busy (020 included): the filing is fine, so the attempt is given back.
    if (error instanceof DartError && error.kind === 'budget') {
      await this.queue.postpone(this.workerId, job.rceptNo, error.retryAfterMs ?? CONFIGURATION_RETRY_MS, reason);
      this.logger.warn(`analysis of ${job.rceptNo} postponed until the disclosure-system budget allows: ${reason}`);
      return;
    }
    const ours = (error instanceof DartError && error.kind === 'configuration') || (error instanceof AnalyzerError && !error.transient);
    if (ours) {
      await this.queue.postpone(this.workerId, job.rceptNo, CONFIGURATION_RETRY_MS, reason);
      this.logger.error(`analysis of ${job.rceptNo} postponed: ${reason}`);
      return;
    }
    const outcome = await this.queue.fail(this.workerId, job, reason);
    this.logger.warn(`analysis of ${job.rceptNo} attempt ${job.attempts} failed (${reason}); now ${outcome ?? 'taken over'}`);
  }
}

function describe(error: unknown): string {
  if (error instanceof DartError) return `disclosure system ${error.status}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
