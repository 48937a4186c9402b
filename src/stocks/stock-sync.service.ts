import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import type { JobsConfig } from '../jobs/jobs.config';
import { InjectConfig } from '../config/config.module';
import { JobScheduler } from '../jobs/job-scheduler';
import { type ActiveRun, RunStopped } from '../jobs/runs/active-run';
import type { JobRunExecutor } from '../jobs/runs/job-run-executor';
import { describeRun, type JobRunStatusFields } from '../jobs/runs/job-run-status';
import { JobRunsRepository } from '../jobs/runs/job-runs.repository';
import type { DartBudgetStatus } from '../upstream/dart/dart-budget';
import { DartClient } from '../upstream/dart/dart-client';
import { type CorpCodeEntry, DartError } from '../upstream/dart/dart.types';
import { CorpCodesRepository } from './corp-codes.repository';
import { StocksRepository } from './stocks.repository';
import { StocksService } from './stocks.service';

export type StockSyncMode = 'incremental' | 'bootstrap';
export type StockSyncPhase = 'downloading' | 'looking-up' | 'removing';

export interface StockSyncStatus extends JobRunStatusFields {
  mode: StockSyncMode | null;
  added: number;
  updated: number;
  removed: number;
  /** The disclosure-system budget; while it is spent the sync waits (still `running`). */
  upstream: DartBudgetStatus;
}

/** corpCode.xml rows are written in batches of this size. */
const REGISTRY_BATCH = 2000;
/** company.json lookups in flight at once (the client's request budget still applies). */
const LOOKUP_CONCURRENCY = 8;

type LookUpOutcome = 'added' | 'updated' | 'unchanged' | { removed: number } | { failed: string };

/**
 * Keeps the stock master true to the disclosure system. corpCode.xml gives every
 * company (about 115,000) and its stock code, but not its market, so each
 * candidate with a stock code is looked up in company.json: Y and K are stored,
 * anything else (third board, delisted, unlisted) is not.
 * - incremental: only stock-coded companies never looked up before (new corp codes,
 *   and companies that gained a stock code) are looked up and added;
 * - bootstrap: every stock-coded company is looked up; renamed, moved and
 *   no-longer-listed companies are updated or removed.
 * One sync runs at a time in the whole fleet (a job_runs row), executed by the
 * instance leading the job 'stock-sync' of the job catalog (daily at 05:00 KST with
 * STOCK_SYNC_SCHEDULER_ENABLED, and on demand). A resumed run downloads the file
 * again and skips the companies already looked up (corp_codes.checked_at: ever, for
 * incremental; since the run started, for bootstrap), so it needs no other checkpoint.
 */
@Injectable()
export class StockSyncService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(StockSyncService.name);
  private readonly executor: JobRunExecutor;

  constructor(
    private readonly dart: DartClient,
    private readonly stockSearch: StocksService,
    private readonly corpCodes: CorpCodesRepository,
    private readonly stocks: StocksRepository,
    private readonly jobRuns: JobRunsRepository,
    jobs: JobScheduler,
    @InjectConfig() private readonly config: { jobs: JobsConfig },
  ) {
    this.executor = jobs.runs('stock-sync', {
      execute: (run) => this.synchronise(run),
      describeFailure: (error) => (error instanceof DartError ? `disclosure system ${error.status}: ${error.message}` : String(error)),
      onLead: () => this.bootstrapIfEmpty(),
      // The daily incremental sync, when STOCK_SYNC_SCHEDULER_ENABLED is true.
      onSchedule: { enabled: config.jobs.stockSyncSchedulerEnabled, run: () => this.startDaily() },
    });
  }

  /** The latest stock sync of the fleet (idle before the first). */
  async status(): Promise<StockSyncStatus> {
    const run = await this.jobRuns.latest('stock-sync');
    return {
      ...describeRun(run),
      mode: (run?.params.mode as StockSyncMode | undefined) ?? null,
      added: run?.counts.added ?? 0,
      updated: run?.counts.updated ?? 0,
      removed: run?.counts.removed ?? 0,
      upstream: this.dart.budgetStatus(),
    };
  }

  /** Starts a sync in the background; refuses while one runs anywhere in the fleet. */
  async start(mode: StockSyncMode): Promise<void> {
    const run = await this.jobRuns.begin('stock-sync', { mode }, { added: 0, updated: 0, removed: 0 });
    if (!run) {
      const running = (await this.jobRuns.latest('stock-sync'))?.params.mode;
      throw new AppError('STOCK_SYNC_RUNNING', `A ${typeof running === 'string' ? `${running} ` : ''}stock sync is already running`);
    }
    // The leader starts it now; on another instance the leader picks it up within a second.
    void this.executor.pickUp();
  }

  /** The daily incremental sync; a sync already running (a bootstrap, say) makes it skip the day. */
  private async startDaily(): Promise<void> {
    try {
      await this.start('incremental');
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'STOCK_SYNC_RUNNING')) throw error;
      this.logger.warn('daily stock sync skipped: a sync is already running');
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.executor.resign();
  }

  /**
   * STOCK_SYNC_BOOTSTRAP: the new leader fills an empty stock master. Once for the
   * fleet: while a sync runs (this one, resumed, or another) nothing new starts.
   */
  private async bootstrapIfEmpty(): Promise<void> {
    if (!this.config.jobs.stockSyncBootstrap || !(await this.stocks.isEmpty())) return;
    if (await this.jobRuns.begin('stock-sync', { mode: 'bootstrap' }, { added: 0, updated: 0, removed: 0 })) {
      this.logger.log('the stock master is empty: starting a bootstrap sync');
    }
  }

  private async synchronise(run: ActiveRun): Promise<void> {
    const mode = run.params.mode as StockSyncMode;
    try {
      await run.enterPhase('downloading');
      const stockCoded = await this.dart.whenBudgetAllows(
        () => this.refreshRegistry(run),
        () => run.stopped,
      );
      let candidates: CorpCodeEntry[];
      if (mode === 'bootstrap') {
        const done = await this.corpCodes.checkedStockCodedSince(run.startedAt);
        candidates = [...stockCoded.values()].filter((entry) => !done.has(entry.corpCode));
        run.total = stockCoded.size;
        run.processed = stockCoded.size - candidates.length;
      } else {
        const checked = await this.corpCodes.checkedStockCoded();
        candidates = [...stockCoded.values()].filter((entry) => !checked.has(entry.corpCode));
        run.total = run.processed + candidates.length;
      }
      await run.enterPhase('looking-up');
      await this.lookUpAll(run, candidates, mode);
      if (mode === 'bootstrap') {
        await run.enterPhase('removing');
        run.counts.removed += await this.stocks.removeAllExcept(new Set(stockCoded.keys()));
      }
    } finally {
      await this.stockSearch.stockMasterChanged().catch((error: unknown) => {
        this.logger.warn({ err: error }, 'telling the other instances that the stock master changed failed');
      });
    }
  }

  /** Streams corpCode.xml into `corp_codes`; returns the entries that carry a stock code. */
  private async refreshRegistry(run: ActiveRun): Promise<Map<string, CorpCodeEntry>> {
    const stockCoded = new Map<string, CorpCodeEntry>();
    let batch: CorpCodeEntry[] = [];
    const flush = async () => {
      await this.corpCodes.upsert(batch);
      batch = [];
    };

    const seen = new Set<string>();
    for await (const entry of this.dart.corpCodes('stockSync')) {
      run.throwIfStopped();
      if (!/^\d{8}$/.test(entry.corpCode) || seen.has(entry.corpCode)) continue;
      seen.add(entry.corpCode);
      if (entry.stockCode !== null) stockCoded.set(entry.corpCode, entry);
      batch.push(entry);
      if (batch.length >= REGISTRY_BATCH) await flush();
    }
    await flush();
    return stockCoded;
  }

  /** Looks the candidates up, a few at a time; on a stop or a fatal error every lookup in flight ends first. */
  private async lookUpAll(run: ActiveRun, candidates: CorpCodeEntry[], mode: StockSyncMode): Promise<void> {
    let next = 0;
    let fatal: unknown;
    const worker = async () => {
      while (next < candidates.length && fatal === undefined && !run.stopped) {
        const entry = candidates[next++];
        try {
          const outcome = await this.lookUp(run, entry, mode);
          // Counters move together, after the lookup's last await.
          run.processed += 1;
          if (outcome === 'added' || outcome === 'updated') run.counts[outcome] += 1;
          else if (typeof outcome === 'object' && 'removed' in outcome) run.counts.removed += outcome.removed;
          else if (typeof outcome === 'object') {
            run.failed += 1;
            run.lastError = outcome.failed;
          }
        } catch (error) {
          fatal ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, candidates.length) }, worker));
    if (fatal !== undefined) throw fatal;
    run.throwIfStopped();
  }

  /** One company: stored when on the Y or K board, otherwise removed (bootstrap) or skipped. */
  private async lookUp(run: ActiveRun, entry: CorpCodeEntry, mode: StockSyncMode): Promise<LookUpOutcome> {
    let market: string | undefined;
    try {
      // A spent budget is waited out: skipping would report every remaining company as failed.
      market = (
        await this.dart.whenBudgetAllows(
          () => this.dart.company(entry.corpCode, 'stockSync'),
          () => run.stopped,
        )
      )?.corp_cls;
    } catch (error) {
      // Stopped while waiting: not a failure, the next executor looks it up.
      if (run.stopped) throw new RunStopped();
      // A dead key stops the whole job; a company that keeps failing is skipped and reported.
      if (error instanceof DartError && error.kind === 'configuration') throw error;
      return { failed: `company ${entry.corpCode}: ${String(error)}` };
    }
    // The master first, then "looked up": a run resumed in between looks the company up again.
    let outcome: LookUpOutcome = 'unchanged';
    if (market === 'Y' || market === 'K') outcome = await this.stocks.upsert(entry, market, mode === 'bootstrap');
    else if (mode === 'bootstrap') outcome = { removed: await this.stocks.remove(entry.corpCode) };
    await this.corpCodes.markChecked(entry.corpCode, market?.slice(0, 1) ?? null);
    return outcome;
  }
}
