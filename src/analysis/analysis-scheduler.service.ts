import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import { Clock } from '../common/clock';
import { maxBackoffMs } from '../jobs/job-catalog';
import { JobScheduler } from '../jobs/job-scheduler';
import type { WorkerPool } from '../jobs/worker-pool';
import type { JobsConfig } from '../jobs/jobs.config';
import { InjectConfig } from '../config/config.module';
import { DISCLOSURE_CREATED } from '../disclosures/disclosure-events';
import { FleetInstancesRepository, type FleetInstance } from '../fleet/fleet-instances.repository';
import { FleetSignals } from '../fleet/fleet-signals';
import { type AnalysisOutcome, Metrics } from '../metrics/metrics';
import type { DartBudgetStatus } from '../upstream/dart/dart-budget';
import { DartError } from '../upstream/dart/dart.types';
import { ANALYSIS_SETTLED, type AnalysisSettledEvent } from './analysis-events';
import { classifyAnalysisFailure, isDartAnswer } from './analysis-failure';
import { AnalysesRepository, type ClaimedAnalysis } from './analyses.repository';
import type { AnalysisConfig } from './analysis.config';
import { Analyzer, AnalyzerError } from './analyzers/analyzer';
import { DartClient } from '../upstream/dart/dart-client';
import { analysisInput, withFactKeyFigures } from './brief/filing-brief';
import { readFilingDocument } from './document/document-text';
import { type ModelCallPermit, ModelCircuit } from './model-circuit';
import { SchedulerSettingsRepository } from './scheduler-settings.repository';
import { noteFilings } from '../tracing/job-span';

/** How long a job waits after a failure that is ours, not the filing's (bad keys). */
const CONFIGURATION_RETRY_MS = 5 * 60_000;

/** Outages in a row that stop the claims: one filing the model (or the disclosure system) fails on alone does not. */
const OUTAGE_THRESHOLD = 3;
/** The longest pause between probes of an upstream that is out, when it gave no Retry-After: its return is seen within it. */
const OUTAGE_PROBE_MAX_MS = 5 * 60_000;

/** A claimed analysis and what the two circuits (the model's, the disclosure system's) allowed its claim. */
type ScheduledAnalysis = ClaimedAnalysis & { permit: ModelCallPermit; dartPermit: ModelCallPermit };

/** The scheduler of the whole fleet, as any instance answers it. */
export interface SchedulerStatus {
  /** The state an operator set for the fleet; before any, whether any live instance runs. */
  status: 'running' | 'paused';
  /** Analyses in progress, summed over live instances. */
  activeThreads: number;
  /** ANALYSIS_CONCURRENCY summed over live instances. */
  concurrency: number;
  /** Analyses completed, from the database. */
  totalSuccess: number;
  /** Analyses given up as UNAVAILABLE, from the database. */
  totalFailed: number;
  queued: number;
  /** The last error of this instance. */
  lastError: string | null;
  /** The disclosure-system budget; while it is spent nothing is claimed. */
  upstream: DartBudgetStatus;
  instances: FleetInstance[];
}

/**
 * Runs up to ANALYSIS_CONCURRENCY analyses at once from the shared queue. New
 * filings wake it at once; a slow poll catches retries whose backoff ended and
 * leases left behind by crashed workers. Pausing lets running analyses finish and
 * claims nothing new.
 *
 * Pause and resume from the admin API are the fleet's (`setFleetPaused`): stored in
 * the database, signalled to every instance, and re-read at every heartbeat, so each
 * instance follows within a few seconds and after any restart. Until an operator sets
 * one, each instance follows ANALYSIS_SCHEDULER_AUTO_START.
 */
@Injectable()
export class AnalysisSchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AnalysisSchedulerService.name);
  private readonly pool: WorkerPool<ScheduledAnalysis>;
  private readonly circuit: ModelCircuit;
  /**
   * The same circuit on the disclosure system's document.xml: during its outage (maintenance, 5xx,
   * no answer) claims stop after a few failures and one filing at a time probes it, so the queue
   * neither hammers it nor spends the filings' attempts on it.
   */
  private readonly dartCircuit: ModelCircuit;
  private lastError: string | null = null;

  constructor(
    @InjectConfig() private readonly config: { ai: AnalysisConfig; jobs: JobsConfig },
    private readonly queue: AnalysesRepository,
    private readonly dart: DartClient,
    private readonly analyzer: Analyzer,
    private readonly settings: SchedulerSettingsRepository,
    private readonly fleet: FleetInstancesRepository,
    private readonly signals: FleetSignals,
    private readonly metrics: Metrics,
    private readonly events: EventEmitter2,
    jobs: JobScheduler,
    clock: Clock,
  ) {
    const outagePolicy = {
      threshold: OUTAGE_THRESHOLD,
      baseMs: config.ai.retryBaseMs,
      maxMs: OUTAGE_PROBE_MAX_MS,
      maxRetryAfterMs: maxBackoffMs('analysis'),
    };
    this.circuit = new ModelCircuit(clock, outagePolicy);
    this.dartCircuit = new ModelCircuit(clock, outagePolicy);
    metrics.sources.analysisQueue = () => this.queue.depths();
    metrics.sources.analysisOldestPending = () => this.queue.oldestPendingAgeSeconds();
    // The queue's poll (ended backoffs, expired leases, other instances' filings) is in the job catalog.
    this.pool = jobs.queue<ScheduledAnalysis>('analysis', {
      concurrency: config.ai.concurrency,
      claim: (workerId) => this.claim(workerId),
      work: (job) => this.process(job),
      // No document can be fetched while the daily budget is spent or the disclosure system is out, and
      // no analysis made while the model is out: claiming would only postpone job after job.
      canClaim: () => this.dart.budgetStatus().exhaustedUntil === null && this.dartCircuit.allowsClaim() && this.circuit.allowsClaim(),
      onClaimError: (error) => {
        this.lastError = `claiming failed: ${describe(error)}`;
        this.logger.error({ err: error }, 'claiming an analysis failed');
      },
      // Not even the failure could be recorded (database down): the lease expires and the job is claimed again.
      onWorkError: (job, error) => {
        this.lastError = `recording ${job.rceptNo} failed: ${describe(error)}`;
        this.logger.error({ err: error }, `recording the analysis of ${job.rceptNo} failed`);
      },
    });
    // Before any heartbeat: the first one already reports this instance's scheduler.
    fleet.reportAnalysisWith(() => ({ running: this.pool.isRunning, active: this.pool.active, concurrency: config.ai.concurrency }));
  }

  /** Identifies this instance's leases. */
  get workerId(): string {
    return this.pool.workerId;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.signals.follow('analysis-scheduler', () => void this.followFleet());
    const paused = await this.settings.paused();
    if (paused ?? !this.config.jobs.analysisSchedulerAutoStart) return;
    this.resume();
  }

  /** Before the database closes: claim nothing new and let running analyses record their results. */
  async beforeApplicationShutdown(): Promise<void> {
    const unfinished = await this.pool.shutdown(this.config.ai.leaseMs);
    if (unfinished > 0) this.logger.warn(`${unfinished} analysis(es) still running at shutdown: claimed again when their lease expires`);
  }

  async status(): Promise<SchedulerStatus> {
    const [paused, instances, finished, queued] = await Promise.all([
      this.settings.paused(),
      this.fleet.live(),
      this.queue.countFinished(),
      this.queue.countQueued(),
    ]);
    const sum = (pick: (instance: FleetInstance) => number) => instances.reduce((total, instance) => total + pick(instance), 0);
    const anyRunning = instances.some((instance) => instance.status === 'running');
    return {
      status: (paused ?? !anyRunning) ? 'paused' : 'running',
      activeThreads: sum((instance) => instance.activeThreads),
      concurrency: sum((instance) => instance.concurrency),
      totalSuccess: finished.completed,
      totalFailed: finished.unavailable,
      queued,
      lastError: this.lastError,
      upstream: this.dart.budgetStatus(),
      instances,
    };
  }

  /** Pauses or resumes every instance: stored, applied here at once, signalled to the others. */
  async setFleetPaused(paused: boolean): Promise<void> {
    await this.settings.setPaused(paused);
    if (paused) this.pause();
    else this.resume();
    await this.signals.publish('analysis-scheduler').catch((error: unknown) => {
      // The others still follow at their next heartbeat.
      this.logger.warn({ err: error }, 'signalling the fleet failed');
    });
  }

  /** Applies the fleet's stored state, if an operator set one. */
  private async followFleet(): Promise<void> {
    let paused: boolean | null;
    try {
      paused = await this.settings.paused();
    } catch {
      return; // database unavailable: keep the current state until the next heartbeat
    }
    if (paused === true) this.pause();
    else if (paused === false) this.resume();
  }

  /** Starts claiming on this instance only (the fleet's state is `setFleetPaused`). */
  resume(): void {
    if (!this.pool.start()) return;
    this.logger.log(
      `analysis scheduler running: ${this.config.ai.concurrency} at once with the ${this.analyzer.provider} analyzer (${this.analyzer.model})`,
    );
  }

  /** Stops claiming on this instance only; running analyses finish. */
  pause(): void {
    if (this.pool.stop()) this.logger.log('analysis scheduler paused: running analyses finish, nothing new is claimed');
  }

  /** Resolves when every running analysis has finished. */
  async drain(): Promise<void> {
    await this.pool.drain();
  }

  @OnEvent(DISCLOSURE_CREATED)
  onDisclosureCreated(): void {
    this.fill();
  }

  /** Fills every free slot while there is claimable work. */
  fill(): void {
    this.pool.fill();
  }

  /** Claims under both circuits' permits: during an outage of either, only its one probe. */
  private async claim(workerId: string): Promise<ScheduledAnalysis | null> {
    const dartPermit = this.dartCircuit.permit();
    if (dartPermit === null) return null;
    const permit = this.circuit.permit();
    if (permit === null) {
      this.dartCircuit.release(dartPermit);
      return null;
    }
    const release = () => {
      this.circuit.release(permit);
      this.dartCircuit.release(dartPermit);
    };
    let job: ClaimedAnalysis | null;
    try {
      job = await this.queue.claim(workerId);
    } catch (error) {
      release();
      throw error;
    }
    if (job === null) {
      release();
      return null;
    }
    return { ...job, permit, dartPermit };
  }

  /** One attempt at one filing: document → facts and the text a model reads → analyzer → stored result. */
  private async process(job: ScheduledAnalysis): Promise<void> {
    noteFilings([job.rceptNo]);
    try {
      await this.attempt(job);
    } finally {
      // A probe that never reached its upstream (no document, the database) hands the probe on.
      this.circuit.release(job.permit);
      this.dartCircuit.release(job.dartPermit);
    }
  }

  private async attempt(job: ScheduledAnalysis): Promise<void> {
    const startedAt = performance.now();
    let recovered = false;
    let dartRecovered = false;
    try {
      const zip = await this.dart.document(job.rceptNo, 'analysisDocument');
      dartRecovered = this.dartCircuit.answered();
      const { document } = await readFilingDocument(zip, job.rceptNo);
      const input = analysisInput(
        { rceptNo: job.rceptNo, corpName: job.corpName, reportName: job.reportName, rceptDt: job.rceptDt },
        document,
      );
      const answer = await this.analyzer.analyze(input);
      recovered = this.circuit.answered();
      // Whatever the analyzer wrote, the key figures lead with the ones read from the filing's tables.
      const output = { ...answer, result: withFactKeyFigures(answer.result, input) };
      if (!(await this.queue.complete(this.workerId, job.rceptNo, { output, docLength: input.docLength, truncated: input.truncated }))) {
        this.logger.warn(`analysis of ${job.rceptNo} finished after its lease was taken over; result dropped`);
      } else {
        this.logger.debug(`analysis of ${job.rceptNo} completed`);
        this.settled(job.rceptNo);
        this.count('completed');
        this.metrics.analysisDuration.observe({ analyzer: this.analyzer.provider }, (performance.now() - startedAt) / 1000);
      }
    } catch (error) {
      this.lastError = `${job.rceptNo}: ${describe(error)}`;
      // A status that is the filing's (014) is still an answer: the disclosure system is there.
      if (isDartAnswer(error)) dartRecovered = this.dartCircuit.answered();
      // An answer that is not an analysis is still an answer: the model is there.
      if (error instanceof AnalyzerError && error.failure === 'bad-answer') recovered = this.circuit.answered();
      await this.recordFailure(job, error);
    }
    const circuits = [...(recovered ? [this.circuit] : []), ...(dartRecovered ? [this.dartCircuit] : [])];
    if (circuits.length > 0) await this.requeueAfterOutage(circuits);
  }

  /**
   * The model or the disclosure system answers again: what an outage postponed (or left UNAVAILABLE
   * before) is claimable now. Both outages share `outage_failures`: a row the other upstream still
   * holds back is claimed only as its circuit allows.
   */
  private async requeueAfterOutage(circuits: ModelCircuit[]): Promise<void> {
    const which = circuits.map((circuit) => (circuit === this.circuit ? 'the model' : 'the disclosure system')).join(' and ');
    try {
      const requeued = await this.queue.requeueAfterOutage();
      if (requeued > 0) this.logger.log(`${which} answers again: ${requeued} analysis(es) an outage held back re-queued`);
    } catch (error) {
      for (const circuit of circuits) circuit.recoveryFailed();
      this.logger.error({ err: error }, 're-queueing the analyses an outage held back failed; tried again at the next answer');
      return;
    }
    this.fill();
  }

  /** A push waiting for this filing's one-liner may go now (PushDispatcher listens). */
  private settled(rceptNo: string): void {
    const event: AnalysisSettledEvent = { rceptNo };
    this.events.emit(ANALYSIS_SETTLED, event);
  }

  private count(outcome: AnalysisOutcome): void {
    this.metrics.analyses.inc({ outcome, analyzer: this.analyzer.provider });
  }

  private async recordFailure(job: ScheduledAnalysis, error: unknown): Promise<void> {
    const reason = describe(error);
    const failure = classifyAnalysisFailure(error);
    switch (failure.kind) {
      case 'no-document':
        // No document (014), or one the disclosure system will never serve us: asking again cannot help.
        await this.queue.markUnavailable(this.workerId, job.rceptNo, reason);
        this.count('unavailable');
        this.settled(job.rceptNo);
        this.logger.warn({ err: error }, `analysis of ${job.rceptNo}: no usable document; UNAVAILABLE`);
        return;
      case 'budget':
        // The budget is spent or busy (020 included): the filing is fine, so the attempt is given back.
        await this.queue.postpone(this.workerId, job.rceptNo, failure.retryAfterMs ?? CONFIGURATION_RETRY_MS, reason);
        this.count('postponed');
        this.logger.warn({ err: error }, `analysis of ${job.rceptNo} postponed until the disclosure-system budget allows`);
        return;
      case 'dart-outage':
        // The disclosure system is out (800, 900, 5xx, a timeout, no connection) after the client's own
        // retries: the filing is fine, so the attempt is given back, and its circuit decides when the
        // next document is asked for. The model's circuit is not told: the model was never asked.
        this.dartCircuit.failed(job.dartPermit);
        await this.queue.postponeForOutage(this.workerId, job, reason);
        this.count('postponed');
        this.logger.warn({ err: error }, `analysis of ${job.rceptNo} postponed: the disclosure system is unavailable (no attempt spent)`);
        return;
      case 'model-outage':
        // The model is out (429, 5xx, a timeout, no connection): the same, on the model's circuit.
        this.circuit.failed(job.permit, failure.retryAfterMs);
        await this.queue.postponeForOutage(this.workerId, job, reason, failure.retryAfterMs);
        this.count('postponed');
        this.logger.warn({ err: error }, `analysis of ${job.rceptNo} postponed: the model is unavailable (no attempt spent)`);
        return;
      case 'configuration':
        await this.queue.postpone(this.workerId, job.rceptNo, CONFIGURATION_RETRY_MS, reason);
        this.count('postponed');
        this.logger.error({ err: error }, `analysis of ${job.rceptNo} postponed: the fault is ours (keys or configuration)`);
        return;
      case 'spent': {
        const outcome = await this.queue.fail(this.workerId, job, reason);
        this.count('failed');
        if (outcome === 'UNAVAILABLE') this.settled(job.rceptNo);
        this.logger.warn({ err: error }, `analysis of ${job.rceptNo} attempt ${job.attempts} failed; now ${outcome ?? 'taken over'}`);
        return;
      }
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof DartError) return `disclosure system ${error.status}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
