import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { splitDateRange } from '../common/korea-time';
import type { DartBudgetStatus } from '../upstream/dart/dart-budget';
import { DartClient } from '../upstream/dart/dart-client';
import { DartError } from '../upstream/dart/dart.types';
import { DisclosureIngestService } from './disclosure-ingest.service';

/**
 * The disclosure system refuses ranges over three calendar months without a
 * company; 28-day windows stay inside that rule whatever the calendar.
 */
const WINDOW_DAYS = 28;

export interface BackfillStatus {
  status: 'idle' | 'running' | 'completed' | 'failed';
  fromDate: string | null;
  toDate: string | null;
  /** Filings found upstream so far (grows as windows are opened). */
  total: number;
  processed: number;
  saved: number;
  failed: number;
  started_at: string | null;
  finished_at: string | null;
  last_error: string | null;
  /** The disclosure-system budget; while it is spent the backfill waits (still `running`). */
  upstream: DartBudgetStatus;
}

/**
 * Collects past filings in the background, one at a time, pacing new ones by `delayMs`.
 * When the disclosure-system budget is spent it waits for it, rather than failing days.
 */
@Injectable()
export class BackfillService implements OnApplicationShutdown {
  private readonly logger = new Logger(BackfillService.name);
  private state: Omit<BackfillStatus, 'upstream'> = {
    status: 'idle',
    fromDate: null,
    toDate: null,
    total: 0,
    processed: 0,
    saved: 0,
    failed: 0,
    started_at: null,
    finished_at: null,
    last_error: null,
  };
  private cancelled = false;
  private run?: Promise<void>;

  constructor(
    private readonly dart: DartClient,
    private readonly ingest: DisclosureIngestService,
    private readonly clock: Clock,
  ) {}

  status(): BackfillStatus {
    return { ...this.state, upstream: this.dart.budgetStatus() };
  }

  /** Starts a backfill; refuses while one runs. */
  start(fromDate: string, toDate: string, delayMs: number): void {
    if (this.state.status === 'running') {
      throw new AppError('BACKFILL_RUNNING', `A backfill of ${this.state.fromDate}-${this.state.toDate} is already running`);
    }
    this.state = {
      status: 'running',
      fromDate,
      toDate,
      total: 0,
      processed: 0,
      saved: 0,
      failed: 0,
      started_at: this.clock.now().toISOString(),
      finished_at: null,
      last_error: null,
    };
    this.cancelled = false;
    this.run = this.collect(fromDate, toDate, delayMs);
  }

  async onApplicationShutdown(): Promise<void> {
    this.cancelled = true;
    await this.run;
  }

  private async collect(fromDate: string, toDate: string, delayMs: number): Promise<void> {
    this.logger.log(`backfill ${fromDate}-${toDate} started`);
    try {
      for (const window of splitDateRange(fromDate, toDate, WINDOW_DAYS)) {
        let pageNo = 1;
        let totalPages = 1;
        do {
          const page = await this.dart.whenBudgetAllows(
            () => this.dart.listPage({ bgnDe: window.from, endDe: window.to, pageNo, pageCount: 100 }, 'backfill'),
            () => this.cancelled,
          );
          if (pageNo === 1) this.state.total += page.totalCount;
          totalPages = page.totalPage;
          for (const filing of page.items) {
            if (this.cancelled) throw new Error('stopped by shutdown');
            await this.collectOne(filing, delayMs);
          }
          pageNo += 1;
        } while (pageNo <= totalPages);
      }
      this.finish('completed');
    } catch (error) {
      const reason = error instanceof DartError ? `disclosure system ${error.status}: ${error.message}` : String(error);
      this.state.last_error = reason;
      this.logger.error(`backfill ${fromDate}-${toDate} failed: ${reason}`);
      this.finish('failed');
    }
  }

  private async collectOne(filing: Parameters<DisclosureIngestService['saveNew']>[0][number], delayMs: number): Promise<void> {
    try {
      const saved = await this.ingest.saveNew([filing], 'backfill');
      this.state.processed += 1;
      if (saved.length > 0) {
        this.state.saved += 1;
        // Pace new filings so the analysis queue fills gradually.
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    } catch (error) {
      this.state.processed += 1;
      this.state.failed += 1;
      this.state.last_error = `saving ${filing.rcept_no} failed: ${String(error)}`;
      this.logger.warn(this.state.last_error);
    }
  }

  private finish(status: 'completed' | 'failed'): void {
    this.state.status = status;
    this.state.finished_at = this.clock.now().toISOString();
    this.logger.log(`backfill ${status}: ${this.state.saved} new of ${this.state.processed} processed`);
  }
}
