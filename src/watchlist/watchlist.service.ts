import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { StocksRepository } from '../stocks/stocks.repository';
import { activeTier, WATCHLIST_CAPACITY } from '../users/active-tier';
import type { PremiumTier } from '../users/user.entity';
import { UsersRepository } from '../users/users.repository';
import { type NotifySettings, WatchStocksRepository, type WatchRow } from './watch-stocks.repository';

/** A watch entry as answered: the row of `watch_stocks`, `created_at` in RFC 3339 UTC. */
export type WatchEntry = Omit<WatchRow, 'created_at'> & { created_at: string };

export interface WatchlistCapacity {
  capacity: number;
  used: number;
  /** `capacity - used`, never below 0 (a downgraded user may hold more than the capacity). */
  remaining: number;
}

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
    private readonly users: UsersRepository,
    private readonly entries: WatchStocksRepository,
    private readonly stocks: StocksRepository,
  ) {}

  /** The user's entries, newest first. */
  async list(userId: number): Promise<WatchEntry[]> {
    return (await this.entries.list(userId)).map(toEntry);
  }

  async capacity(userId: number): Promise<WatchlistCapacity> {
    const row = await this.entries.usage(userId);
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
   * with itself and with tier changes (UsersRepository.writePremium); unlike FOR UPDATE it does not
   * block the KEY SHARE locks that foreign-key checks take when other features
   * insert rows of this user. Users of different accounts never wait on each other.
   */
  async add(userId: number, corpCode: string): Promise<WatchEntry> {
    return this.dataSource.transaction(async (manager) => {
      const user = await this.users.lockPremium(manager, userId);
      if (!user) throw new AppError('UNAUTHORIZED', 'The account of this token no longer exists');

      const existing = await this.entries.find(manager, userId, corpCode);
      if (existing) return toEntry(existing);

      const stock = await this.stocks.find(manager, corpCode);
      if (!stock) throw new AppError('UNKNOWN_STOCK', `corp_code ${corpCode} is not a listed company of the stock master`);

      const capacity = this.capacityOfTier(user);
      const used = await this.entries.count(manager, userId);
      if (used >= capacity) {
        throw new AppError('WATCHLIST_FULL', `The watchlist is full (${used} of ${capacity})`, { capacity, used });
      }

      // The lock already excludes a concurrent insert of the same company; the
      // unique constraint stays the last word should another writer ever skip it.
      const inserted = await this.entries.insert(manager, { userId, corpCode, corpName: stock.corpName, stockCode: stock.stockCode });
      if (inserted) return toEntry(inserted);
      const raced = await this.entries.find(manager, userId, corpCode);
      if (!raced) throw new Error(`watch entry ${userId}/${corpCode} neither inserted nor found`);
      return toEntry(raced);
    });
  }

  /** Removes an entry; 404 when the user has none for the company. */
  async remove(userId: number, corpCode: string): Promise<void> {
    if (!(await this.entries.remove(userId, corpCode))) throw notOnWatchlist(corpCode);
  }

  /** Turns push messages for one entry on or off and answers the entry. */
  async setNotify(userId: number, corpCode: string, settings: NotifySettings): Promise<WatchEntry> {
    const row = await this.entries.setNotify(userId, corpCode, settings);
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
    const user = await this.users.lockPremium(manager, userId);
    if (!user) return 0;
    return this.entries.keepNewest(manager, userId, this.capacityOfTier(user));
  }

  /** The watchlist capacity of a user's active tier now. */
  private capacityOfTier(user: PremiumColumns): number {
    const tier = activeTier({ premiumTier: user.premium_tier, premiumUntil: user.premium_until }, this.clock.now());
    return WATCHLIST_CAPACITY[tier];
  }
}

/** The premium columns the capacity depends on. */
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
