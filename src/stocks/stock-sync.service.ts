import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import type { DartBudgetStatus } from '../upstream/dart/dart-budget';
import { DartClient } from '../upstream/dart/dart-client';
import { type CorpCodeEntry, DartError } from '../upstream/dart/dart.types';
import { CorpCodes } from './corp-codes';
import { Stocks } from './stocks';
import { StocksService } from './stocks.service';

export type StockSyncMode = 'incremental' | 'bootstrap';

export interface StockSyncStatus {
  status: 'idle' | 'running' | 'completed' | 'failed';
  mode: StockSyncMode | null;
  total: number;
  processed: number;
  added: number;
  updated: number;
  removed: number;
  failed: number;
  started_at: string | null;
  finished_at: string | null;
  last_error: string | null;
  /** The disclosure-system budget; while it is spent the sync waits (still `running`). */
  upstream: DartBudgetStatus;
}

/** corpCode.xml rows are written in batches of this size. */
const REGISTRY_BATCH = 2000;
/** company.json lookups in flight at once (the client's request budget still applies). */
const LOOKUP_CONCURRENCY = 8;

/**
 * Keeps the stock master true to the disclosure system. corpCode.xml gives every
 * company (about 115,000) and its stock code, but not its market, so each
 * candidate with a stock code is looked up in company.json: Y and K are stored,
 * anything else (third board, delisted, unlisted) is not.
 * - incremental: only stock-coded companies never looked up before (new corp codes,
 *   and companies that gained a stock code) are looked up and added;
 * - bootstrap: every stock-coded company is looked up; renamed, moved and
 *   no-longer-listed companies are updated or removed.
 */
@Injectable()
export class StockSyncService implements OnApplicationShutdown {
  private readonly logger = new Logger(StockSyncService.name);
  private state: Omit<StockSyncStatus, 'upstream'> = {
    status: 'idle',
    mode: null,
    total: 0,
    processed: 0,
    added: 0,
    updated: 0,
    removed: 0,
    failed: 0,
    started_at: null,
    finished_at: null,
    last_error: null,
  };
  private run?: Promise<void>;
  private cancelled = false;

  constructor(
    private readonly dart: DartClient,
    private readonly clock: Clock,
    private readonly stockSearch: StocksService,
    private readonly corpCodes: CorpCodes,
    private readonly stocks: Stocks,
  ) {}

  status(): StockSyncStatus {
    return { ...this.state, upstream: this.dart.budgetStatus() };
  }

  /** Starts a sync in the background; refuses while one runs. Resolves when it is started. */
  start(mode: StockSyncMode): void {
    if (this.state.status === 'running') {
      throw new AppError('STOCK_SYNC_RUNNING', `A ${this.state.mode} stock sync is already running`);
    }
    this.state = {
      status: 'running',
      mode,
      total: 0,
      processed: 0,
      added: 0,
      updated: 0,
      removed: 0,
      failed: 0,
      started_at: this.clock.now().toISOString(),
      finished_at: null,
      last_error: null,
    };
    this.cancelled = false;
    this.run = this.synchronise(mode);
  }

  /** Resolves when the current sync (if any) has finished. */
  async settled(): Promise<void> {
    await this.run;
  }

  async onApplicationShutdown(): Promise<void> {
    this.cancelled = true;
    await this.run;
  }

  private async synchronise(mode: StockSyncMode): Promise<void> {
    this.logger.log(`stock sync (${mode}) started`);
    try {
      const stockCoded = await this.dart.whenBudgetAllows(() => this.refreshRegistry(), () => this.cancelled);
      const checked = mode === 'bootstrap' ? new Set<string>() : await this.corpCodes.checkedStockCoded();
      const candidates = [...stockCoded.values()].filter((entry) => !checked.has(entry.corpCode));
      this.state.total = candidates.length;
      await this.lookUpAll(candidates, mode);
      if (mode === 'bootstrap') await this.removeVanished(new Set(stockCoded.keys()));
      this.finish('completed');
    } catch (error) {
      this.state.last_error =
        error instanceof DartError ? `disclosure system ${error.status}: ${error.message}` : String(error);
      this.logger.error(`stock sync (${mode}) failed: ${this.state.last_error}`);
      this.finish('failed');
    } finally {
      this.stockSearch.clearSearchCache();
    }
  }

  /** Streams corpCode.xml into `corp_codes`; returns the entries that carry a stock code. */
  private async refreshRegistry(): Promise<Map<string, CorpCodeEntry>> {
    const stockCoded = new Map<string, CorpCodeEntry>();
    let batch: CorpCodeEntry[] = [];
    const flush = async () => {
      await this.corpCodes.upsert(batch);
      batch = [];
    };

    const seen = new Set<string>();
    for await (const entry of this.dart.corpCodes('stockSync')) {
      if (this.cancelled) throw new Error('stopped by shutdown');
      if (!/^\d{8}$/.test(entry.corpCode) || seen.has(entry.corpCode)) continue;
      seen.add(entry.corpCode);
      if (entry.stockCode !== null) stockCoded.set(entry.corpCode, entry);
      batch.push(entry);
      if (batch.length >= REGISTRY_BATCH) await flush();
    }
    await flush();
    return stockCoded;
  }

  private async lookUpAll(candidates: CorpCodeEntry[], mode: StockSyncMode): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < candidates.length) {
        if (this.cancelled) throw new Error('stopped by shutdown');
        const entry = candidates[next++];
        await this.lookUp(entry, mode);
        this.state.processed += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, candidates.length) }, worker));
  }

  /** One company: stored when on the Y or K board, otherwise removed (bootstrap) or skipped. */
  private async lookUp(entry: CorpCodeEntry, mode: StockSyncMode): Promise<void> {
    let market: string | undefined;
    try {
      // A spent budget is waited out: skipping would report every remaining company as failed.
      market = (await this.dart.whenBudgetAllows(() => this.dart.company(entry.corpCode, 'stockSync'), () => this.cancelled))?.corp_cls;
    } catch (error) {
      // A dead key stops the whole job; a company that keeps failing is skipped and reported.
      if (error instanceof DartError && error.kind === 'configuration') throw error;
      this.state.failed += 1;
      this.state.last_error = `company ${entry.corpCode}: ${String(error)}`;
      return;
    }
    await this.corpCodes.markChecked(entry.corpCode, market?.slice(0, 1) ?? null);
    if (market === 'Y' || market === 'K') {
      const stored = await this.stocks.upsert(entry, market, mode === 'bootstrap');
      if (stored === 'added') this.state.added += 1;
      else if (stored === 'updated') this.state.updated += 1;
    } else if (mode === 'bootstrap') {
      // Awaited before the `+=`: concurrent lookups would otherwise overwrite each other's count.
      const removed = await this.stocks.remove(entry.corpCode);
      this.state.removed += removed;
    }
  }

  /** Bootstrap only: stocks whose company no longer carries a stock code, or left the file. */
  private async removeVanished(stockCoded: Set<string>): Promise<void> {
    const removed = await this.stocks.removeAllExcept(stockCoded);
    this.state.removed += removed;
  }

  private finish(status: 'completed' | 'failed'): void {
    this.state.status = status;
    this.state.finished_at = this.clock.now().toISOString();
    const { added, updated, removed, failed } = this.state;
    this.logger.log(`stock sync ${status}: ${added} added, ${updated} updated, ${removed} removed, ${failed} skipped`);
  }
}
