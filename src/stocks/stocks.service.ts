import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { kstDate } from '../common/korea-time';
import type { ActiveStockView, StockView } from './stock.view';

const SEARCH_LIMIT = 20;
/** The specification's second, in-handler cache of search results. */
const SEARCH_CACHE_TTL_MS = 10 * 60 * 1000;

/** `%`, `_` and the escape character itself are taken literally in a search. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

@Injectable()
export class StocksService {
  private readonly searchCache: LRUCache<string, StockView[]>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {
    this.searchCache = new LRUCache({ max: 10_000, ttl: SEARCH_CACHE_TTL_MS, perf: { now: () => clock.nowMs() } });
  }

  /**
   * Case-insensitive partial match on the name, or exact match on the stock code,
   * ordered by name in code-point order (the same on every database collation).
   */
  async search(query: string): Promise<StockView[]> {
    const text = query.trim();
    if (text === '') return [];
    const key = text.toLowerCase();
    const cached = this.searchCache.get(key);
    if (cached) return cached;
    const rows = await this.dataSource.query<StockView[]>(
      `SELECT corp_code, corp_name, stock_code, market_type FROM stocks
       WHERE corp_name ILIKE $1 ESCAPE '\\' OR stock_code = upper($2)
       ORDER BY corp_name COLLATE "C", corp_code
       LIMIT ${SEARCH_LIMIT}`,
      [`%${escapeLike(text)}%`, text],
    );
    this.searchCache.set(key, rows);
    return rows;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.dataSource.query<unknown[]>('SELECT 1 FROM stocks LIMIT 1')).length === 0;
  }

  /** After the stock master changed, searches must see it. */
  clearSearchCache(): void {
    this.searchCache.clear();
  }

  /**
   * Companies with at least one filing today (Korea time) that has a completed,
   * non-empty summary: one entry each, from its latest such filing, newest first.
   */
  async active(limit: number): Promise<ActiveStockView[]> {
    return this.dataSource.query<ActiveStockView[]>(
      `SELECT corp_code, corp_name, stock_code FROM (
         SELECT DISTINCT ON (d.corp_code) d.corp_code, d.corp_name, d.stock_code, d.rcept_dt, d.rcept_no
         FROM disclosures d
         JOIN analyses a ON a.rcept_no = d.rcept_no AND a.status = 'COMPLETED' AND a.one_liner <> ''
         WHERE d.rcept_dt = $1 AND d.stock_code <> ''
         ORDER BY d.corp_code, d.rcept_dt DESC, d.rcept_no DESC
       ) latest
       ORDER BY rcept_dt DESC, rcept_no DESC
       LIMIT $2`,
      [kstDate(this.clock.now()), limit],
    );
  }
}
