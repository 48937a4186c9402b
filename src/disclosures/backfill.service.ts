import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { backoffMs } from '../common/backoff';
import { AppError } from '../common/errors/app-error';
import { splitDateRange } from '../common/korea-time';
import { isDatabaseUnavailable } from '../database/database-errors';
import { JobScheduler } from '../jobs/job-scheduler';
import { type ActiveRun, RunStopped } from '../jobs/runs/active-run';
import type { JobRunExecutor } from '../jobs/runs/job-run-executor';
import { describeRun, type JobRunStatusFields } from '../jobs/runs/job-run-status';
import { JobRunsRepository } from '../jobs/runs/job-runs.repository';
import type { DartBudgetStatus } from '../upstream/dart/dart-budget';
import { DartClient } from '../upstream/dart/dart-client';
import { DartError, type DartFiling } from '../upstream/dart/dart.types';
import { DisclosureIngestService } from './disclosure-ingest.service';

/**
 * The disclosure system refuses ranges over three calendar months without a
 * company; 28-day windows stay inside that rule whatever the calendar.
 */
const WINDOW_DAYS = 28;
/** The disclosure system's largest page. */
const PAGE_SIZE = 100;
/** While the database is away, the same filing (or page) is tried again after this, doubling up to OUTAGE_RETRY_MAX_MS. */
const OUTAGE_RETRY_BASE_MS = 500;
const OUTAGE_RETRY_MAX_MS = 10_000;

export type BackfillPhase = 'counting' | 'collecting';

export interface BackfillStatus extends JobRunStatusFields {
  fromDate: string | null;
  toDate: string | null;
  /**
   * Of the processed filings, those that were new and are now stored: counted in the transaction
   * that stores each one (JobRunsRepository.addToCount), so a crash or an outage loses no count.
   */
  saved: number;
  /** The disclosure-system budget; while it is spent the backfill waits (still `running`). */
  upstream: DartBudgetStatus;
}

interface BackfillParams {
  fromDate: string;
  toDate: string;
  delayMs: number;
}

/**
 * Where a backfill resumes. Counting: the windows counted so far. Collecting: the
 * page of the window being read and how many of its items are done. It is written
 * about once a second, so a resumed run reads again the filings done after it: they
 * are found stored and not counted again (`saved` was counted with each of them).
 */
interface BackfillCheckpoint {
  /** Filings upstream per 28-day window, as counted (a window of 0 is not read). */
  windowTotals: number[];
  window: number;
  pageNo: number;
  item: number;
}

/**
 * Collects past filings in the background, pacing new ones by `delayMs`: first it
 * counts the range (one list call per window), then collects it page by page. One
 * backfill runs at a time in the whole fleet (a job_runs row), executed by the
 * instance that leads the 'backfill' singleton job, which resumes it from its
 * checkpoint after a restart or a leader change. When the disclosure-system budget
 * is spent it waits for it, rather than failing days.
 */
@Injectable()
export class BackfillService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(BackfillService.name);
  private readonly executor: JobRunExecutor;

  constructor(
    private readonly dart: DartClient,
    private readonly ingest: DisclosureIngestService,
    private readonly jobRuns: JobRunsRepository,
    jobs: JobScheduler,
  ) {
    this.executor = jobs.runs('backfill', {
      execute: (run) => this.collect(run),
      describeFailure: (error) => (error instanceof DartError ? `disclosure system ${error.status}: ${error.message}` : String(error)),
    });
  }

  /** The latest backfill of the fleet (idle before the first). */
  async status(): Promise<BackfillStatus> {
    const run = await this.jobRuns.latest('backfill');
    const params = run?.params as BackfillParams | undefined;
    return {
      ...describeRun(run),
      fromDate: params?.fromDate ?? null,
      toDate: params?.toDate ?? null,
      saved: run?.counts.saved ?? 0,
      upstream: this.dart.budgetStatus(),
    };
  }

  /** Starts a backfill; refuses while one runs anywhere in the fleet. */
  async start(fromDate: string, toDate: string, delayMs: number): Promise<void> {
    const params: BackfillParams = { fromDate, toDate, delayMs };
    const run = await this.jobRuns.begin('backfill', { ...params }, { saved: 0 });
    if (!run) {
      const running = (await this.jobRuns.latest('backfill'))?.params as BackfillParams | undefined;
      const range = running ? ` of ${running.fromDate}-${running.toDate}` : '';
      throw new AppError('BACKFILL_RUNNING', `A backfill${range} is already running`);
    }
    // The leader starts it now; on another instance the leader picks it up within a second.
    void this.executor.pickUp();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.executor.resign();
  }

  private async collect(run: ActiveRun): Promise<void> {
    const { fromDate, toDate, delayMs } = run.params as unknown as BackfillParams;
    const windows = splitDateRange(fromDate, toDate, WINDOW_DAYS);
    const resumedFrom = run.resumedFrom as BackfillCheckpoint | null;
    let checkpoint: BackfillCheckpoint = resumedFrom ?? { windowTotals: [], window: 0, pageNo: 1, item: 0 };
    // `saved` is kept by the database (saveOne); a progress write must never set it back to what this executor last saw.
    delete run.counts.saved;

    if (run.total === null) {
      await run.enterPhase('counting');
      const windowTotals = [...checkpoint.windowTotals];
      while (windowTotals.length < windows.length) {
        run.throwIfStopped();
        const window = windows[windowTotals.length];
        const page = await this.listPage(run, window, 1, 1);
        windowTotals.push(page.totalCount);
        checkpoint = { ...checkpoint, windowTotals };
        run.checkpoint = { ...checkpoint };
      }
      run.total = windowTotals.reduce((sum, count) => sum + count, 0);
    }

    await run.enterPhase('collecting');
    while (checkpoint.window < windows.length) {
      run.throwIfStopped();
      if (checkpoint.windowTotals[checkpoint.window] === 0) {
        checkpoint = { ...checkpoint, window: checkpoint.window + 1, pageNo: 1, item: 0 };
        run.checkpoint = { ...checkpoint };
        continue;
      }
      const page = await this.listPage(run, windows[checkpoint.window], checkpoint.pageNo, PAGE_SIZE);
      for (let item = checkpoint.item; item < page.items.length; item++) {
        run.throwIfStopped();
        const outcome = await this.saveOne(run, page.items[item]);
        // Counters and checkpoint move together (no await between): a write never splits them.
        run.processed += 1;
        if (typeof outcome === 'object') {
          run.failed += 1;
          run.lastError = outcome.error;
        }
        checkpoint = { ...checkpoint, item: item + 1 };
        run.checkpoint = { ...checkpoint };
        // Pace new filings so the analysis queue fills gradually.
        if (outcome === 'saved') await run.pause(delayMs);
      }
      checkpoint =
        checkpoint.pageNo < page.totalPage
          ? { ...checkpoint, pageNo: checkpoint.pageNo + 1, item: 0 }
          : { ...checkpoint, window: checkpoint.window + 1, pageNo: 1, item: 0 };
      run.checkpoint = { ...checkpoint };
    }
  }

  private listPage(run: ActiveRun, window: { from: string; to: string }, pageNo: number, pageCount: number) {
    // The shared budget lives in the database too: an outage there is waited out like one while saving.
    return this.outlastingOutages(run, `listing ${window.from}-${window.to} page ${pageNo}`, () =>
      this.dart.whenBudgetAllows(
        () => this.dart.listPage({ bgnDe: window.from, endDe: window.to, pageNo, pageCount }, 'backfill'),
        () => run.stopped,
      ),
    );
  }

  /**
   * Stores one filing and, in the same transaction, counts it in the run's `saved`; 'known' when it
   * was stored already (a resumed page repeats the filings done after the last checkpoint, and a save
   * whose commit landed unseen in an outage is found here on the next try: counted once either way).
   * An outage of the database is waited out, never skipped: the filing is tried again until it answers
   * or the run stops. Other failures count the filing as failed.
   */
  private async saveOne(run: ActiveRun, filing: DartFiling): Promise<'saved' | 'known' | { error: string }> {
    try {
      const created = await this.outlastingOutages(run, `saving ${filing.rcept_no}`, () =>
        this.ingest.saveNew([filing], 'backfill', {
          withStored: async (manager, stored) => {
            if (!(await this.jobRuns.addToCount(manager, run.id, 'saved', stored.length))) throw new RunTakenOver();
          },
        }),
      );
      return created.length > 0 ? 'saved' : 'known';
    } catch (error) {
      if (error instanceof RunTakenOver) {
        // Rolled back: the executor that took the run over stores and counts this filing.
        run.stop();
        throw new RunStopped();
      }
      if (error instanceof RunStopped) throw error;
      this.logger.warn({ err: error }, `saving ${filing.rcept_no} failed`);
      return { error: `saving ${filing.rcept_no} failed: ${String(error)}` };
    }
  }

  /** `work`, tried again while the database is unreachable, until it answers or the run is stopped (RunStopped). */
  private async outlastingOutages<T>(run: ActiveRun, what: string, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        // A failed upstream call is the disclosure system's, whatever its message says.
        if (error instanceof DartError || !isDatabaseUnavailable(error)) throw error;
        if (attempt === 1) this.logger.warn({ err: error }, `${what}: the database is unavailable; trying again until it answers`);
        run.throwIfStopped();
        await run.pause(backoffMs(attempt, { baseMs: OUTAGE_RETRY_BASE_MS, maxMs: OUTAGE_RETRY_MAX_MS, jitter: 0.2 }));
        run.throwIfStopped();
      }
    }
  }
}

/** The run's `saved` could not be counted: another executor took the run over. */
class RunTakenOver extends Error {
  constructor() {
    super('the run was taken over by another executor');
  }
}
