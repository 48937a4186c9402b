import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { DailyBudget } from './daily-budget';
import { DartError } from './dart.types';
import { BudgetBusyError, RequestBudget, SlidingWindowLog } from './request-budget';

/**
 * Who is asking, most urgent first. New filings must never wait behind a public
 * read: the monitor outranks an operator's fetch, which outranks analyses, then
 * the backfill, the stock sync, and last the company reads of anonymous callers.
 */
export const DART_PRIORITIES = ['monitor', 'adminFetch', 'analysisDocument', 'backfill', 'stockSync', 'companyRead'] as const;
export type DartPriority = (typeof DART_PRIORITIES)[number];

/** How long a public read may wait for a slot before it is answered 503 instead. */
export const PUBLIC_READ_MAX_WAIT_MS = 2_000;
export const MAX_WAIT_MS: Partial<Record<DartPriority, number>> = { companyRead: PUBLIC_READ_MAX_WAIT_MS };
/**
 * The part of the day's allowance a priority may use. Anyone can ask for any of the
 * ~115,000 known codes, so public reads get a quarter: the rest stays for new filings
 * and their analyses, whatever the traffic. (A stored answer serves for days, so real
 * readers need far less.)
 */
const DAILY_SHARE: Partial<Record<DartPriority, number>> = { companyRead: 0.25 };

/** Calls of a priority the day allows: the count at which the day closes for it (calls of every priority count). */
export function dailyCapOf(priority: DartPriority, perDay: number): number {
  return Math.max(1, Math.floor(perDay * (DAILY_SHARE[priority] ?? 1)));
}

/** The least urgent priority that may take the minute's last slots. */
const LAST_RESERVED_FOR: DartPriority = 'adminFetch';
/** The part of the minute kept for the monitor and an operator's fetch when several instances share the budget. */
const MINUTE_RESERVE = 0.1;

/**
 * Starts in the rolling minute after which a priority is refused. The monitor and
 * an admin fetch may use the whole minute; every other priority leaves the last
 * ~10 % (at least one slot, none for a budget of one a minute) to them, so a backfill
 * on one instance cannot starve the monitor of another: each instance ranks its own
 * line, but only this reserve ranks callers across instances.
 */
export function minuteCapOf(priority: DartPriority, perMinute: number): number {
  if (DART_PRIORITIES.indexOf(priority) <= DART_PRIORITIES.indexOf(LAST_RESERVED_FOR)) return perMinute;
  const reserve = perMinute < 2 ? 0 : Math.max(1, Math.floor(perMinute * MINUTE_RESERVE));
  return perMinute - reserve;
}
/**
 * The line's bound. Jobs bring a handful of waiters at most (their concurrency is bounded);
 * the rest are public reads, and more than this many could not be served within their wait anyway.
 */
export const MAX_WAITING = 100;

/** What the admin statuses show about the disclosure-system budget. */
export interface DartBudgetStatus {
  dailyLimit: number;
  /** Calls counted today (KST). */
  usedToday: number;
  /** ISO time the daily budget opens again (next KST midnight); null while calls are allowed. */
  exhaustedUntil: string | null;
  minuteLimit: number;
  usedLastMinute: number;
  /** Callers waiting for a slot now. */
  waiting: number;
}

/**
 * The disclosure-system request budget as the client sees it: PostgresDartBudget,
 * shared by every instance (DART_BUDGET_STORE=postgres, the default), or
 * LocalDartBudget for a single instance (memory).
 */
export interface DartBudget {
  /**
   * Resolves when a request of this priority may start; the start is counted.
   * Rejects with a `budget` DartError ('BUSY', 'DAILY_LIMIT') carrying `retryAfterMs`.
   */
  acquire(priority: DartPriority): Promise<void>;
  /**
   * The upstream answered 020: the key's allowance is spent until the next KST day.
   * Closes the day at once for this process; resolves when every instance knows.
   */
  reportLimitReached(): void | Promise<void>;
  status(): DartBudgetStatus;
}

export interface LocalDartBudgetLimits {
  requestsPerMinute: number;
  requestsPerDay: number;
  /** Most callers waiting at once; MAX_WAITING by default. */
  maxWaiting?: number;
}

/**
 * The budget of one process (DART_BUDGET_STORE=memory): a per-minute sliding window
 * with a ranked line, and a per-KST-day count. Several instances with it spend the
 * key's allowance several times over.
 */
export class LocalDartBudget implements DartBudget {
  private readonly log: SlidingWindowLog;
  private readonly minute: RequestBudget;
  private readonly day: DailyBudget;

  constructor(
    limits: LocalDartBudgetLimits,
    private readonly wallClock: () => Date,
    /** Times the minute and its waits (monotonic); the system's by default. */
    time?: Clock,
  ) {
    this.log = new SlidingWindowLog(limits.requestsPerMinute, time);
    this.minute = new RequestBudget(this.log, time, { maxWaiting: limits.maxWaiting ?? MAX_WAITING });
    this.day = new DailyBudget(limits.requestsPerDay, wallClock);
  }

  async acquire(priority: DartPriority): Promise<void> {
    const share = DAILY_SHARE[priority] ?? 1;
    // Checked before waiting (nobody queues for a closed day) and after (it may have closed meanwhile).
    this.refuseWhenDayClosed(share);
    try {
      await this.minute.acquire({ rank: DART_PRIORITIES.indexOf(priority), maxWaitMs: MAX_WAIT_MS[priority] });
    } catch (error) {
      if (!(error instanceof BudgetBusyError)) throw error;
      throw new DartError('budget', 'BUSY', `disclosure-system budget: no slot for ${priority} soon enough`, error.retryAfterMs);
    }
    if (!this.day.take(share)) this.refuseWhenDayClosed(share);
  }

  reportLimitReached(): void {
    this.day.markSpent();
  }

  status(): DartBudgetStatus {
    return {
      dailyLimit: this.day.perDay,
      usedToday: this.day.usedToday(),
      exhaustedUntil: this.day.closedUntil()?.toISOString() ?? null,
      minuteLimit: this.log.perMinute,
      usedLastMinute: this.log.inWindow(),
      waiting: this.minute.waiting(),
    };
  }

  private refuseWhenDayClosed(share: number): void {
    const until = this.day.closedUntil(share);
    if (until === null) return;
    throw new DartError(
      'budget',
      'DAILY_LIMIT',
      `disclosure-system budget: today's calls are spent until ${until.toISOString()}`,
      until.getTime() - this.wallClock().getTime(),
    );
  }
}

/** The answer to an HTTP caller whose call the budget refused: 503 UPSTREAM_BUSY with Retry-After. */
export function upstreamBusy(refusal: DartError): AppError {
  return new AppError(
    'UPSTREAM_BUSY',
    'The disclosure system is busy with other work or its daily allowance is spent; try again later',
    {},
    Math.max(1, Math.ceil((refusal.retryAfterMs ?? 0) / 1000)),
  );
}
