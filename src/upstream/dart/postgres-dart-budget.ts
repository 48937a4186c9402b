import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { type Clock, SystemClock } from '../../common/clock';
import { kstDate, startOfNextKstDay } from '../../common/korea-time';
import { isDatabaseUnavailable } from '../../database/database-errors';
import {
  DART_PRIORITIES,
  type DartBudget,
  type DartBudgetStatus,
  type DartPriority,
  dailyCapOf,
  MAX_WAIT_MS,
  MAX_WAITING,
  minuteCapOf,
} from './dart-budget';
import { DartError } from './dart.types';
import { BudgetBusyError, RequestBudget, type SlotAnswer, type SlotSource, WINDOW_MS } from './request-budget';

/** How soon a caller refused because the database did not answer may ask again. */
export const BUDGET_UNAVAILABLE_RETRY_MS = 1_000;
/** How often the status snapshot is read again when no grant refreshed it. */
const STATUS_REFRESH_MS = 5_000;

const TAKE = 'SELECT granted, retry_in_ms, used_today, day_spent, in_window FROM dart_budget_take($1, $2, $3, $4)';
const STATUS = `
SELECT (SELECT count(*)::int FROM dart_request_starts
        WHERE started_at > coalesce(to_timestamp($2::float8 / 1000), clock_timestamp()) - interval '60 seconds') AS in_window,
       (SELECT used FROM dart_budget_days WHERE day = $1) AS used_today,
       (SELECT spent FROM dart_budget_days WHERE day = $1) AS day_spent`;
const SPEND_DAY = 'INSERT INTO dart_budget_days AS d (day, spent) VALUES ($1, true) ON CONFLICT (day) DO UPDATE SET spent = true';

interface TakeRow {
  granted: boolean;
  retry_in_ms: number | null;
  used_today: number;
  day_spent: boolean;
  in_window: number;
}

/** The fleet's budget as last read: by a grant, a refusal or the periodic refresh. */
interface Snapshot {
  /** Which answer it came from: an older answer arriving late never overwrites a newer one. */
  seq: number;
  day: string;
  usedToday: number;
  spent: boolean;
  inWindow: number;
}

export interface PostgresDartBudgetLimits {
  requestsPerMinute: number;
  requestsPerDay: number;
  /** Most callers of this instance waiting at once; MAX_WAITING by default. */
  maxWaiting?: number;
}

/**
 * Owner of tables dart_request_starts and dart_budget_days: the only writer.
 *
 * The disclosure-system budget of the whole fleet (DART_BUDGET_STORE=postgres):
 * never more than DART_REQUESTS_PER_MINUTE starts in any rolling minute nor
 * DART_REQUESTS_PER_DAY calls per KST day, however many instances run. Each grant is
 * one call of dart_budget_take (migration 1764420000000), serialised across
 * instances by an advisory lock: it drops the starts older than a minute, counts the
 * rest, and either records the start and counts the day, or says how long until a
 * slot frees. The minute runs on the database clock (one clock for the fleet; tests
 * pass their virtual one), the KST day on the app's Clock.
 *
 * Priorities: within an instance callers wait in the same ranked line as the local
 * budget (monitor > adminFetch > analysisDocument > backfill > stockSync >
 * companyRead), which asks the database for its head's slot. Across instances, ranks
 * below adminFetch may not take the last ~10 % of the minute (minuteCapOf), so a
 * backfill on one instance cannot starve the monitor of another; company reads stop
 * at a quarter of the day (dailyCapOf). A 020 marks the day spent for every instance.
 *
 * When the database cannot answer, no call is granted: the caller is refused as by
 * the budget (DartError 'budget' UNAVAILABLE) with a short retry, so jobs wait and an
 * HTTP caller gets 503. `status()` is synchronous: it shows the last answer, read
 * again every few seconds.
 */
export class PostgresDartBudget implements DartBudget, SlotSource {
  readonly ranked = true;
  private readonly line: RequestBudget;
  private readonly logger = new Logger('DartBudget');
  private snapshot: Snapshot = { seq: 0, day: '', usedToday: 0, spent: false, inWindow: 0 };
  private asked = 0;
  /** The KST day this instance heard 020: it asks nobody again that day, even before the database knows. */
  private spentDay: string | null = null;
  /** The last wait the database named, for the retry hint of refused callers. */
  private lastRetryInMs = 0;
  private refreshTimer?: NodeJS.Timeout;
  private refreshing = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly limits: PostgresDartBudgetLimits,
    private readonly wallClock: () => Date,
    /** Times the line's waits (monotonic). */
    private readonly time: Clock = new SystemClock(),
    /** The minute's clock when it is not the database's: milliseconds on the tests' virtual scale. */
    private readonly minuteClock?: () => number,
  ) {
    this.line = new RequestBudget(this, time, { maxWaiting: limits.maxWaiting ?? MAX_WAITING });
  }

  /** Starts the periodic refresh of the status snapshot (unref'd: it never keeps the process alive). */
  startRefreshing(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setInterval(() => void this.refresh(), STATUS_REFRESH_MS).unref();
    void this.refresh();
  }

  stopRefreshing(): void {
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  async acquire(priority: DartPriority): Promise<void> {
    // Nobody queues for a day known to be closed.
    const closed = this.dayClosedFor(priority);
    if (closed) throw closed;
    try {
      await this.line.acquire({ rank: DART_PRIORITIES.indexOf(priority), maxWaitMs: MAX_WAIT_MS[priority] });
    } catch (error) {
      if (!(error instanceof BudgetBusyError)) throw error;
      throw new DartError('budget', 'BUSY', `disclosure-system budget: no slot for ${priority} soon enough`, error.retryAfterMs);
    }
  }

  /** The line's question for its head: one round trip to dart_budget_take. */
  async take(rank: number): Promise<SlotAnswer> {
    const priority = DART_PRIORITIES[rank];
    const closed = this.dayClosedFor(priority);
    if (closed) return { granted: false, refusal: closed };
    const day = kstDate(this.wallClock());
    const seq = ++this.asked;
    let row: TakeRow;
    try {
      [row] = (await this.dataSource.query(TAKE, [
        day,
        minuteCapOf(priority, this.limits.requestsPerMinute),
        dailyCapOf(priority, this.limits.requestsPerDay),
        this.minuteClock?.() ?? null,
      ])) as TakeRow[];
    } catch (error) {
      throw this.unavailable(error);
    }
    this.remember({ seq, day, usedToday: row.used_today, spent: row.day_spent, inWindow: row.in_window });
    if (row.granted) {
      this.lastRetryInMs = 0;
      return { granted: true };
    }
    const refused = this.dayClosedFor(priority);
    if (refused) return { granted: false, refusal: refused };
    this.lastRetryInMs = row.retry_in_ms ?? WINDOW_MS;
    return { granted: false, retryInMs: this.lastRetryInMs };
  }

  retryAfterFor(ahead: number): number {
    return this.lastRetryInMs + WINDOW_MS * Math.floor(ahead / this.limits.requestsPerMinute);
  }

  async reportLimitReached(): Promise<void> {
    const day = kstDate(this.wallClock());
    this.spentDay = day;
    try {
      await this.dataSource.query(SPEND_DAY, [day]);
    } catch (error) {
      // This instance stays closed for the day; the others learn it from their own 020.
      this.logger.warn({ err: error }, 'could not record the spent disclosure-system day for the fleet');
    }
  }

  status(): DartBudgetStatus {
    const day = kstDate(this.wallClock());
    const today = this.snapshot.day === day ? this.snapshot : { usedToday: 0, spent: false };
    const closed = today.spent || this.spentDay === day || today.usedToday >= this.limits.requestsPerDay;
    return {
      dailyLimit: this.limits.requestsPerDay,
      usedToday: today.usedToday,
      exhaustedUntil: closed ? startOfNextKstDay(this.wallClock()).toISOString() : null,
      minuteLimit: this.limits.requestsPerMinute,
      usedLastMinute: this.snapshot.inWindow,
      waiting: this.line.waiting(),
    };
  }

  /** Reads the fleet's counts for the status; one read at a time, failures ignored (the next grant or refresh tells). */
  async refresh(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      const day = kstDate(this.wallClock());
      const seq = ++this.asked;
      const [row] = (await this.dataSource.query(STATUS, [day, this.minuteClock?.() ?? null])) as TakeRow[];
      this.remember({ seq, day, usedToday: row.used_today ?? 0, spent: row.day_spent ?? false, inWindow: row.in_window });
    } catch (error) {
      if (!isDatabaseUnavailable(error)) this.logger.warn({ err: error }, 'could not read the disclosure-system budget');
    } finally {
      this.refreshing = false;
    }
  }

  private remember(answer: Snapshot): void {
    if (answer.seq < this.snapshot.seq) return;
    this.snapshot = answer;
  }

  /** The refusal for a priority whose part of today is known to be spent, or null. */
  private dayClosedFor(priority: DartPriority): DartError | null {
    const now = this.wallClock();
    const day = kstDate(now);
    const known = this.snapshot.day === day ? this.snapshot : null;
    const spent = this.spentDay === day || known?.spent === true;
    if (!spent && (known?.usedToday ?? 0) < dailyCapOf(priority, this.limits.requestsPerDay)) return null;
    const until = startOfNextKstDay(now);
    return new DartError(
      'budget',
      'DAILY_LIMIT',
      `disclosure-system budget: today's calls are spent until ${until.toISOString()}`,
      until.getTime() - now.getTime(),
    );
  }

  private unavailable(error: unknown): DartError {
    if (!isDatabaseUnavailable(error))
      this.logger.error({ err: error }, 'the disclosure-system budget could not be read; refusing the call');
    return new DartError(
      'budget',
      'UNAVAILABLE',
      'disclosure-system budget: the database did not answer, so no call is allowed',
      BUDGET_UNAVAILABLE_RETRY_MS,
    );
  }
}
