import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Clock } from '../common/clock';
import { kstDate } from '../common/korea-time';
import { DisclosuresRepository } from '../disclosures/disclosures.repository';
import { FleetSignals } from '../fleet/fleet-signals';
import type { ActiveStockView, StockView } from './stock.view';
import { StocksRepository } from './stocks.repository';

/** The specification's second, in-handler cache of search results. */
const SEARCH_CACHE_TTL_MS = 10 * 60 * 1000;

/** The public stock reads: search and today's active companies. */
@Injectable()
export class StocksService {
  private readonly searchCache: LRUCache<string, StockView[]>;

  constructor(
    private readonly stocks: StocksRepository,
    private readonly disclosures: DisclosuresRepository,
    private readonly clock: Clock,
    private readonly signals: FleetSignals,
  ) {
    // ttlResolution 0: lru-cache otherwise reuses its last reading of `now` until a 1 ms wall-clock
    // timer clears it, so right after the clock moves (a test's FakeClock) an entry could outlive its TTL.
    this.searchCache = new LRUCache({ max: 10_000, ttl: SEARCH_CACHE_TTL_MS, ttlResolution: 0, perf: { now: () => clock.nowMs() } });
    signals.on('stock-master', () => this.searchCache.clear());
  }

  /** The stock master's search (StocksRepository.search), cached per lower-cased text. */
  async search(query: string): Promise<StockView[]> {
    const text = query.trim();
    if (text === '') return [];
    const key = text.toLowerCase();
    const cached = this.searchCache.get(key);
    if (cached) return cached;
    const rows = await this.stocks.search(text);
    this.searchCache.set(key, rows);
    return rows;
  }

  /** After the stock master changed, searches on every instance must see it. */
  async stockMasterChanged(): Promise<void> {
    this.searchCache.clear();
    // Delivered to this instance too; the local clear above does not wait for it.
    await this.signals.publish('stock-master');
  }

  /**
   * Companies with at least one filing today (Korea time) that has a completed,
   * non-empty summary: one entry each, from its latest such filing, newest first.
   */
  async active(limit: number): Promise<ActiveStockView[]> {
    return this.disclosures.summarisedCompaniesOn(kstDate(this.clock.now()), limit);
  }
}
