import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { ImpactLevel } from '../analysis/analyzers/analysis-result.schema';
import type { ReportType } from '../disclosures/report-type';
import type { PremiumTier } from '../users/user.entity';

/** A row of `watch_stocks` as read, with the column names. */
export interface WatchRow {
  id: number;
  user_id: number;
  corp_code: string;
  corp_name: string;
  stock_code: string | null;
  notify_enabled: boolean;
  categories: ReportType[] | null;
  min_impact: ImpactLevel | null;
  created_at: Date;
}

/** A change of an entry's notification settings; an absent field stays as it is, null clears a filter. */
export interface NotifySettings {
  notifyEnabled?: boolean;
  categories?: ReportType[] | null;
  minImpact?: ImpactLevel | null;
}

const WATCH_COLUMNS = 'id, user_id, corp_code, corp_name, stock_code, notify_enabled, categories, min_impact, created_at';
/** Newest first; the id breaks ties between entries added in the same microsecond. */
const NEWEST_FIRST = 'created_at DESC, id DESC';

/**
 * Owner of table watch_stocks: the only writer. The capacity rule lives in
 * WatchlistService, which calls the methods that take a `manager` under the user's
 * row lock (UsersRepository.lockPremium). The push fan-out reads the table in a join.
 */
@Injectable()
export class WatchStocksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The user's entries, newest first. */
  async list(userId: number): Promise<WatchRow[]> {
    return this.dataSource.query<WatchRow[]>(`SELECT ${WATCH_COLUMNS} FROM watch_stocks WHERE user_id = $1 ORDER BY ${NEWEST_FIRST}`, [
      userId,
    ]);
  }

  async find(manager: EntityManager, userId: number, corpCode: string): Promise<WatchRow | undefined> {
    const [row] = await manager.query<WatchRow[]>(`SELECT ${WATCH_COLUMNS} FROM watch_stocks WHERE user_id = $1 AND corp_code = $2`, [
      userId,
      corpCode,
    ]);
    return row;
  }

  /** How many entries the user holds, with the premium columns the capacity depends on; undefined when the user is gone. */
  async usage(userId: number): Promise<{ premium_tier: PremiumTier; premium_until: Date | null; used: number } | undefined> {
    const [row] = await this.dataSource.query<{ premium_tier: PremiumTier; premium_until: Date | null; used: number }[]>(
      `SELECT u.premium_tier, u.premium_until,
              (SELECT count(*)::int FROM watch_stocks w WHERE w.user_id = u.id) AS used
       FROM users u WHERE u.id = $1`,
      [userId],
    );
    return row;
  }

  async count(manager: EntityManager, userId: number): Promise<number> {
    const [{ n }] = await manager.query<{ n: number }[]>('SELECT count(*)::int AS n FROM watch_stocks WHERE user_id = $1', [userId]);
    return n;
  }

  /** Inserts an entry; undefined when (user, company) already exists (the unique constraint decides). */
  async insert(
    manager: EntityManager,
    entry: { userId: number; corpCode: string; corpName: string; stockCode: string | null },
  ): Promise<WatchRow | undefined> {
    const [inserted] = await manager.query<WatchRow[]>(
      `INSERT INTO watch_stocks (user_id, corp_code, corp_name, stock_code) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, corp_code) DO NOTHING
       RETURNING ${WATCH_COLUMNS}`,
      [entry.userId, entry.corpCode, entry.corpName, entry.stockCode],
    );
    return inserted;
  }

  /** Removes an entry; false when the user had none for the company. */
  async remove(userId: number, corpCode: string): Promise<boolean> {
    // Counted through a CTE: TypeORM's raw DELETE result is not the row list.
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      `WITH deleted AS (DELETE FROM watch_stocks WHERE user_id = $1 AND corp_code = $2 RETURNING 1)
       SELECT count(*)::int AS n FROM deleted`,
      [userId, corpCode],
    );
    return n > 0;
  }

  /** Changes the notification settings of one entry and answers it; undefined when there is no such entry. */
  async setNotify(userId: number, corpCode: string, settings: NotifySettings): Promise<WatchRow | undefined> {
    const [row] = await this.dataSource.query<WatchRow[]>(
      `WITH updated AS (
         UPDATE watch_stocks
         SET notify_enabled = coalesce($3, notify_enabled),
             categories = CASE WHEN $4 THEN $5::varchar[] ELSE categories END,
             min_impact = CASE WHEN $6 THEN $7 ELSE min_impact END
         WHERE user_id = $1 AND corp_code = $2 RETURNING ${WATCH_COLUMNS}
       ) SELECT ${WATCH_COLUMNS} FROM updated`,
      [
        userId,
        corpCode,
        settings.notifyEnabled ?? null,
        settings.categories !== undefined,
        settings.categories ?? null,
        settings.minImpact !== undefined,
        settings.minImpact ?? null,
      ],
    );
    return row;
  }

  /** Deletes all but the newest `keep` entries of the user; returns how many were removed. */
  async keepNewest(manager: EntityManager, userId: number, keep: number): Promise<number> {
    const [{ n }] = await manager.query<{ n: number }[]>(
      `WITH surplus AS (
         SELECT id FROM watch_stocks WHERE user_id = $1 ORDER BY ${NEWEST_FIRST} OFFSET $2
       ), deleted AS (
         DELETE FROM watch_stocks w USING surplus WHERE w.id = surplus.id RETURNING 1
       ) SELECT count(*)::int AS n FROM deleted`,
      [userId, keep],
    );
    return n;
  }
}
