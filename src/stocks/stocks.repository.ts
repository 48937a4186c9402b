import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedStatement } from '../database/prepared-statements';
import type { CorpCodeEntry } from '../upstream/dart/dart.types';
import { type MarketType, StockEntity } from './stock.entity';
import type { StockView } from './stock.view';

const SEARCH_LIMIT = 20;

/** `%`, `_` and the escape character itself are taken literally in a search. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

const SEARCH_STATEMENT = preparedStatement(
  'stocks_search',
  `SELECT corp_code, corp_name, stock_code, market_type FROM stocks
   WHERE corp_name ILIKE $1 ESCAPE '\\' OR stock_code = upper($2)
   ORDER BY corp_name COLLATE "C", corp_code
   LIMIT ${SEARCH_LIMIT}`,
);

/**
 * Owner of table stocks: the only writer. The stock master, written by the stock sync;
 * read by the search and by the watchlist (a company is added with its name and code).
 */
@Injectable()
export class StocksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Case-insensitive partial match on the name, or exact match on the stock code,
   * ordered by name in code-point order (the same on every database collation).
   */
  async search(text: string): Promise<StockView[]> {
    return this.dataSource.query<StockView[]>(SEARCH_STATEMENT, [`%${escapeLike(text)}%`, text]);
  }

  /** The listed company's name and stock code, in the caller's transaction. */
  async find(manager: EntityManager, corpCode: string): Promise<Pick<StockEntity, 'corpName' | 'stockCode'> | null> {
    return manager.getRepository(StockEntity).findOne({ select: { corpName: true, stockCode: true }, where: { corpCode } });
  }

  async isEmpty(): Promise<boolean> {
    return (await this.dataSource.query<unknown[]>('SELECT 1 FROM stocks LIMIT 1')).length === 0;
  }

  /**
   * Stores a company of the Y or K board. An existing one is updated only when `update`
   * is set and something changed. Returns whether it was added, updated or left alone.
   */
  async upsert(entry: CorpCodeEntry, market: MarketType, update: boolean): Promise<'added' | 'updated' | 'unchanged'> {
    const [row] = await this.dataSource.query<{ inserted: boolean }[]>(
      `INSERT INTO stocks AS s (corp_code, corp_name, stock_code, market_type) VALUES ($1, $2, $3, $4)
       ON CONFLICT (corp_code) DO UPDATE SET
         corp_name = EXCLUDED.corp_name, stock_code = EXCLUDED.stock_code,
         market_type = EXCLUDED.market_type, updated_at = now()
       WHERE $5 AND (s.corp_name, s.stock_code, s.market_type)
         IS DISTINCT FROM (EXCLUDED.corp_name, EXCLUDED.stock_code, EXCLUDED.market_type)
       RETURNING (xmax = 0) AS inserted`,
      [entry.corpCode, entry.corpName.slice(0, 255), entry.stockCode, market, update],
    );
    return !row ? 'unchanged' : row.inserted ? 'added' : 'updated';
  }

  /** Removes one company from the master; returns how many rows went (0 or 1). */
  async remove(corpCode: string): Promise<number> {
    return this.countDeleted('DELETE FROM stocks WHERE corp_code = $1 RETURNING 1', [corpCode]);
  }

  /** Removes every company not in `kept`; returns how many rows went. */
  async removeAllExcept(kept: Set<string>): Promise<number> {
    return this.countDeleted('DELETE FROM stocks WHERE NOT (corp_code = ANY($1::text[])) RETURNING 1', [[...kept]]);
  }

  /** Rows removed by a `DELETE … RETURNING 1` (TypeORM's raw DELETE result is not the row list). */
  private async countDeleted(deleteStatement: string, params: unknown[]): Promise<number> {
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      `WITH deleted AS (${deleteStatement}) SELECT count(*)::int AS n FROM deleted`,
      params,
    );
    return n;
  }
}
