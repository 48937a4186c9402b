/** Where the budget reads the time and how it waits; tests pass a virtual pair. */
export interface TimeSource {
  /** Milliseconds on a scale that never goes back (a wall clock may be set back). */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemTime: TimeSource = {
  now: () => performance.now(),
  // Unref'd: a pending wait (a budget window, a read's deadline) never keeps a process alive by itself.
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
};

const WINDOW_MS = 60_000;

/** Thrown to a caller the budget will not serve soon enough: the line is full, or its deadline passed. */
export class BudgetBusyError extends Error {
  constructor(
    /** A fair guess at when asking again could succeed. */
    readonly retryAfterMs: number,
  ) {
    super('the request budget has no slot soon enough');
    this.name = 'BudgetBusyError';
  }
}

export interface RequestBudgetOptions {
  /** The most callers that may wait at once (default: no bound); an arrival beyond it is refused (or displaces a lower rank). */
  maxWaiting?: number;
}

export interface SlotRequest {
  /** Lower ranks are served first; equal ranks in arrival order. */
  rank: number;
  /** Give up (BudgetBusyError) when no slot was granted within this long; unset: wait as long as it takes. */
  maxWaitMs?: number;
}

interface Waiter {
  rank: number;
  seq: number;
  grant: () => void;
  refuse: (error: BudgetBusyError) => void;
}

/**
 * At most `perMinute` request starts in any rolling 60-second window: a sliding
 * log of the last starts. A fixed per-minute counter would allow twice the budget
 * across a minute boundary, which is exactly what gets an OpenDART key blocked.
 *
 * Callers that find no room wait in a bounded line ordered by rank, then arrival:
 * a freed slot goes to the best-ranked waiter, however late it came.
 */
export class RequestBudget {
  /** Start times, oldest first; those before `head` have left the window. */
  private starts: number[] = [];
  private head = 0;
  /** Waiting callers, best first. */
  private waiters: Waiter[] = [];
  private arrivals = 0;
  private pumping = false;
  private readonly maxWaiting: number;

  constructor(
    readonly perMinute: number,
    private readonly time: TimeSource = systemTime,
    options: RequestBudgetOptions = {},
  ) {
    if (!Number.isInteger(perMinute) || perMinute < 1) throw new RangeError(`perMinute must be a positive integer (got ${perMinute})`);
    this.maxWaiting = options.maxWaiting ?? Infinity;
  }

  /**
   * Resolves when a request may start now; the start is recorded against the budget.
   * Rejects with BudgetBusyError when the line is full or `maxWaitMs` passes first.
   */
  acquire(request: SlotRequest = { rank: 0 }): Promise<void> {
    const now = this.time.now();
    this.forgetExpired(now);
    if (this.waiters.length === 0 && this.hasRoom()) {
      this.starts.push(now);
      return Promise.resolve();
    }
    if (this.waiters.length >= this.maxWaiting) {
      const worst = this.waiters[this.waiters.length - 1];
      if (worst.rank <= request.rank) return Promise.reject(new BudgetBusyError(this.retryAfterFor(this.waiters.length)));
      // A more urgent caller takes the place of the least urgent one.
      this.waiters.pop();
      worst.refuse(new BudgetBusyError(this.retryAfterFor(this.waiters.length)));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { rank: request.rank, seq: this.arrivals++, grant: resolve, refuse: reject };
      const at = this.waiters.findIndex((other) => other.rank > waiter.rank);
      this.waiters.splice(at === -1 ? this.waiters.length : at, 0, waiter);
      if (request.maxWaitMs !== undefined) void this.expireAfter(waiter, request.maxWaitMs);
      void this.pump();
    });
  }

  /** Requests started in the 60 seconds up to now. */
  inWindow(): number {
    this.forgetExpired(this.time.now());
    return this.starts.length - this.head;
  }

  /** Callers waiting for a slot. */
  waiting(): number {
    return this.waiters.length;
  }

  /** Grants slots to the best waiters as the window frees them; one pump runs at a time. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0) {
        const now = this.time.now();
        this.forgetExpired(now);
        while (this.waiters.length > 0 && this.hasRoom()) {
          this.starts.push(now);
          this.waiters.shift()!.grant();
        }
        if (this.waiters.length === 0) break;
        // The oldest start leaves the window exactly WINDOW_MS after it happened.
        await this.time.sleep(this.starts[this.head] + WINDOW_MS - now);
      }
    } finally {
      this.pumping = false;
    }
  }

  private async expireAfter(waiter: Waiter, maxWaitMs: number): Promise<void> {
    await this.time.sleep(maxWaitMs);
    const place = this.waiters.indexOf(waiter);
    if (place === -1) return;
    this.waiters.splice(place, 1);
    waiter.refuse(new BudgetBusyError(this.retryAfterFor(place)));
  }

  /** When the slot of a caller with `ahead` callers before it frees up: the start it would replace leaves the window. */
  private retryAfterFor(ahead: number): number {
    const now = this.time.now();
    this.forgetExpired(now);
    const inWindow = this.starts.length - this.head;
    if (inWindow === 0) return 0;
    const replaced = this.starts[this.head + Math.min(ahead, inWindow - 1)];
    return Math.max(0, replaced + WINDOW_MS - now) + WINDOW_MS * Math.floor(ahead / this.perMinute);
  }

  private hasRoom(): boolean {
    return this.starts.length - this.head < this.perMinute;
  }

  private forgetExpired(now: number): void {
    while (this.head < this.starts.length && this.starts[this.head] + WINDOW_MS <= now) this.head++;
    // Moving a head index instead of shifting keeps a large budget (a sandbox allows 100,000) cheap;
    // the expired prefix is dropped once it is the larger part.
    if (this.head > 1_000 && this.head * 2 > this.starts.length) {
      this.starts = this.starts.slice(this.head);
      this.head = 0;
    }
  }
}
