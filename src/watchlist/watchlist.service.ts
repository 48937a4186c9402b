import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { activeTier, WATCHLIST_CAPACITY } from '../users/active-tier';
import type { PremiumTier } from '../users/user.entity';

/** A watch entry as answered: the column names of `watch_stocks`, `created_at` in RFC 3339 UTC. */
export interface WatchEntry {
  id: number;
  user_id: number;
  corp_code: string;
  corp_name: string;
  stock_code: string | null;
  notify_enabled: boolean;
  created_at: string;
}

export interface WatchlistCapacity {
  capacity: number;
  used: number;
  /** `capacity - used`, never below 0 (a downgraded user may hold more than the capacity). */
  remaining: number;
}

type WatchRow = Omit<WatchEntry, 'created_at'> & { created_at: Date };

const WATCH_COLUMNS = 'id, user_id, corp_code, corp_name, stock_code, notify_enabled, created_at';
/** Newest first; the id breaks ties between entries added in the same microsecond. */
const NEWEST_FIRST = 'created_at DESC, id DESC';

/**
 * The watchlist. Adding is the only operation with a limit; it decides inside the
 * database, under a lock on the user's row, so parallel adds can never pass the
 * capacity. Methods taking an EntityManager can run inside the caller's transaction.
 */
@Injectable()
export class WatchlistService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  /** The user's entries, newest first. */
  async list(userId: number): Promise<WatchEntry[]> {
    const rows = await this.dataSource.query<WatchRow[]>(
      `SELECT ${WATCH_COLUMNS} FROM watch_stocks WHERE user_id = $1 ORDER BY ${NEWEST_FIRST}`,
      [userId],
    );
    return rows.map(toEntry);
  }

  async capacity(userId: number): Promise<WatchlistCapacity> {
    const [row] = await this.dataSource.query<(PremiumColumns & { used: number })[]>(
      `SELECT u.premium_tier, u.premium_until,
              (SELECT count(*)::int FROM watch_stocks w WHERE w.user_id = u.id) AS used
       FROM users u WHERE u.id = $1`,
      [userId],
    );
    if (!row) throw new AppError('UNAUTHORIZED', 'The account of this token no longer exists');
    return toCapacity(this.capacityOfTier(row), row.used);
  }

  /**
   * Adds a company from the stock master, copying its name and stock code. An
   * existing entry is answered as it is, without a capacity check.
   *
   * Why a row lock rather than one conditional INSERT … SELECT … WHERE count < capacity:
   * under READ COMMITTED two such statements for different companies both count the
   * same committed rows and both insert. Locking the user's row first makes adds of
   * one user take turns, and each statement after the lock sees what the previous
   * holder committed. FOR NO KEY UPDATE is the weakest lock that still conflicts
   * with itself and with tier changes (UPDATE users); unlike FOR UPDATE it does not
   * block the KEY SHARE locks that foreign-key checks take when other features
   * insert rows of this user. Users of different accounts never wait on each other.
   */
  async add(userId: number, corpCode: string): Promise<WatchEntry> {
    return this.dataSource.transaction(async (manager) => {
      const user = await this.lockUser(manager, userId);
      if (!user) throw new AppError('UNAUTHORIZED', 'The account of this token no longer exists');

      const existing = await this.findEntry(manager, userId, corpCode);
      if (existing) return existing;

      const [stock] = await manager.query<{ corp_name: string; stock_code: string }[]>(
        'SELECT corp_name, stock_code FROM stocks WHERE corp_code = $1',
        [corpCode],
      );
      if (!stock) throw new AppError('UNKNOWN_STOCK', `corp_code ${corpCode} is not a listed company of the stock master`);

      const capacity = this.capacityOfTier(user);
      const used = await this.countEntries(manager, userId);
      if (used >= capacity) {
        throw new AppError('WATCHLIST_FULL', `The watchlist is full (${used} of ${capacity})`, { capacity, used });
      }

      // The lock already excludes a concurrent insert of the same company; the
      // unique constraint stays the last word should another writer ever skip it.
      const [inserted] = await manager.query<WatchRow[]>(
        `INSERT INTO watch_stocks (user_id, corp_code, corp_name, stock_code) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, corp_code) DO NOTHING
         RETURNING ${WATCH_COLUMNS}`,
        [userId, corpCode, stock.corp_name, stock.stock_code],
      );
      if (inserted) return toEntry(inserted);
      const raced = await this.findEntry(manager, userId, corpCode);
      if (!raced) throw new Error(`watch entry ${userId}/${corpCode} neither inserted nor found`);
      return raced;
    });
  }

  /** Removes an entry; 404 when the user has none for the company. */
  async remove(userId: number, corpCode: string): Promise<void> {
    // Counted through a CTE: TypeORM's raw DELETE result is not the row list.
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      `WITH deleted AS (DELETE FROM watch_stocks WHERE user_id = $1 AND corp_code = $2 RETURNING 1)
       SELECT count(*)::int AS n FROM deleted`,
      [userId, corpCode],
    );
    if (n === 0) throw notOnWatchlist(corpCode);
  }

  /** Turns push messages for one entry on or off and answers the entry. */
  async setNotify(userId: number, corpCode: string, notifyEnabled: boolean): Promise<WatchEntry> {
    const [row] = await this.dataSource.query<WatchRow[]>(
      `WITH updated AS (
         UPDATE watch_stocks SET notify_enabled = $3 WHERE user_id = $1 AND corp_code = $2 RETURNING ${WATCH_COLUMNS}
       ) SELECT ${WATCH_COLUMNS} FROM updated`,
      [userId, corpCode, notifyEnabled],
    );
    if (!row) throw notOnWatchlist(corpCode);
    return toEntry(row);
  }

  /**
   * Removes the entries above the capacity of the tier active now, oldest first,
   * keeping the newest ones; returns how many were removed. For the downgrade
   * cleanup: it decides by the tier at the moment it runs, so a user who
   * subscribed again in the meantime loses nothing. Takes the same row lock as
   * `add`, so an add cannot slip in between the count and the delete.
   */
  async trimToCapacity(userId: number, manager?: EntityManager): Promise<number> {
    if (!manager) return this.dataSource.transaction((own) => this.trimToCapacity(userId, own));
    const user = await this.lockUser(manager, userId);
    if (!user) return 0;
    const [{ n }] = await manager.query<{ n: number }[]>(
      `WITH surplus AS (
         SELECT id FROM watch_stocks WHERE user_id = $1 ORDER BY ${NEWEST_FIRST} OFFSET $2
       ), deleted AS (
         DELETE FROM watch_stocks w USING surplus WHERE w.id = surplus.id RETURNING 1
       ) SELECT count(*)::int AS n FROM deleted`,
      [userId, this.capacityOfTier(user)],
    );
    return n;
  }

  /** The watchlist capacity of a user's active tier now. */
  private capacityOfTier(user: PremiumColumns): number {
    const tier = activeTier({ premiumTier: user.premium_tier, premiumUntil: user.premium_until }, this.clock.now());
    return WATCHLIST_CAPACITY[tier];
  }

  private async lockUser(manager: EntityManager, userId: number): Promise<PremiumColumns | undefined> {
    const [row] = await manager.query<PremiumColumns[]>(
      'SELECT premium_tier, premium_until FROM users WHERE id = $1 FOR NO KEY UPDATE',
      [userId],
    );
    return row;
  }

  private async findEntry(manager: EntityManager, userId: number, corpCode: string): Promise<WatchEntry | undefined> {
    const [row] = await manager.query<WatchRow[]>(
      `SELECT ${WATCH_COLUMNS} FROM watch_stocks WHERE user_id = $1 AND corp_code = $2`,
      [userId, corpCode],
    );
    return row && toEntry(row);
  }

  private async countEntries(manager: EntityManager, userId: number): Promise<number> {
    const [{ n }] = await manager.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM watch_stocks WHERE user_id = $1',
      [userId],
    );
    return n;
  }
}

interface PremiumColumns {
  premium_tier: PremiumTier;
  premium_until: Date | null;
}

function toEntry(row: WatchRow): WatchEntry {
  return { ...row, created_at: row.created_at.toISOString() };
}

function toCapacity(capacity: number, used: number): WatchlistCapacity {
  return { capacity, used, remaining: Math.max(0, capacity - used) };
}

function notOnWatchlist(corpCode: string): AppError {
  return new AppError('WATCH_ENTRY_NOT_FOUND', `corp_code ${corpCode} is not on the watchlist`);
}
