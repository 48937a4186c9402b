import { Clock, SystemClock } from '../../common/clock';

export const WINDOW_MS = 60_000;

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

/** What a slot source answers the line about the caller at its head. */
export type SlotAnswer =
  /** A start was recorded: the caller may go. */
  | { granted: true }
  /** Nothing recorded; a slot could free up in this long. */
  | { granted: false; retryInMs: number }
  /** This caller will not be served (e.g. its share of the day is spent): it is refused with this error. */
  | { granted: false; refusal: Error };

/**
 * Where the line gets its slots: the sliding log of this process, or one shared by
 * every instance (PostgresDartBudget). `take` may answer at once or later; when it
 * throws, the source cannot answer at all and every waiter is refused with the error.
 */
export interface SlotSource {
  take(rank: number): SlotAnswer | Promise<SlotAnswer>;
  /** A fair guess at when a caller with `ahead` callers before it could start. */
  retryAfterFor(ahead: number): number;
  /**
   * True when the answer depends on the rank (some slots are kept for better ranks):
   * a better-ranked arrival then asks at once instead of waiting out the head's retry time.
   */
  readonly ranked?: boolean;
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
  grant: () => void;
  refuse: (error: unknown) => void;
  /** The source is being asked for this waiter's slot: it stays in the line until the answer. */
  asking: boolean;
  /** Its deadline passed while the source was being asked: refused unless the answer is a grant. */
  expired: boolean;
}

/**
 * At most `perMinute` request starts in any rolling 60-second window: a sliding
 * log of the last starts. A fixed per-minute counter would allow twice the budget
 * across a minute boundary, which is exactly what gets an OpenDART key blocked.
 */
export class SlidingWindowLog implements SlotSource {
  /** Start times, oldest first; those before `head` have left the window. */
  private starts: number[] = [];
  private head = 0;

  constructor(
    readonly perMinute: number,
    /** Read on its monotonic scale; tests pass a FakeClock. */
    private readonly clock: Clock = new SystemClock(),
  ) {
    if (!Number.isInteger(perMinute) || perMinute < 1) throw new RangeError(`perMinute must be a positive integer (got ${perMinute})`);
  }

  take(): SlotAnswer {
    const now = this.clock.monotonicMs();
    this.forgetExpired(now);
    if (this.starts.length - this.head < this.perMinute) {
      this.starts.push(now);
      return { granted: true };
    }
    // The oldest start leaves the window exactly WINDOW_MS after it happened.
    return { granted: false, retryInMs: this.starts[this.head] + WINDOW_MS - now };
  }

  /** Requests started in the 60 seconds up to now. */
  inWindow(): number {
    this.forgetExpired(this.clock.monotonicMs());
    return this.starts.length - this.head;
  }

  /** When the slot of a caller with `ahead` callers before it frees up: the start it would replace leaves the window. */
  retryAfterFor(ahead: number): number {
    const now = this.clock.monotonicMs();
    this.forgetExpired(now);
    const inWindow = this.starts.length - this.head;
    if (inWindow === 0) return 0;
    const replaced = this.starts[this.head + Math.min(ahead, inWindow - 1)];
    return Math.max(0, replaced + WINDOW_MS - now) + WINDOW_MS * Math.floor(ahead / this.perMinute);
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

/**
 * A bounded line of callers waiting for request slots, ordered by rank, then
 * arrival: a freed slot goes to the best-ranked waiter, however late it came. The
 * slots come from a SlotSource (this process's sliding log, or the fleet's in
 * PostgreSQL); the line asks it for one caller at a time, so one instance never has
 * more than one question in flight and a grant is one round trip.
 */
export class RequestBudget {
  /** Waiting callers, best first. */
  private waiters: Waiter[] = [];
  private pumping = false;
  /** The rank the source last refused while the pump waits; a better arrival wakes the pump. */
  private refusedRank = Infinity;
  private wake?: () => void;
  private readonly maxWaiting: number;

  constructor(
    private readonly source: SlotSource,
    /** Times the waits (monotonic time and sleep); tests pass a FakeClock. */
    private readonly clock: Clock = new SystemClock(),
    options: RequestBudgetOptions = {},
  ) {
    this.maxWaiting = options.maxWaiting ?? Infinity;
  }

  /**
   * Resolves when a request may start now; the start is recorded against the budget.
   * Rejects with BudgetBusyError when the line is full or `maxWaitMs` passes first,
   * or with the source's refusal or failure.
   */
  acquire(request: SlotRequest = { rank: 0 }): Promise<void> {
    if (this.waiters.length >= this.maxWaiting) {
      const worst = this.waiters[this.waiters.length - 1];
      // A waiter whose slot is being asked for keeps its place until the answer.
      if (worst.rank <= request.rank || worst.asking) {
        return Promise.reject(new BudgetBusyError(this.source.retryAfterFor(this.waiters.length)));
      }
      // A more urgent caller takes the place of the least urgent one.
      this.waiters.pop();
      worst.refuse(new BudgetBusyError(this.source.retryAfterFor(this.waiters.length)));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { rank: request.rank, grant: resolve, refuse: reject, asking: false, expired: false };
      const at = this.waiters.findIndex((other) => other.rank > waiter.rank);
      this.waiters.splice(at === -1 ? this.waiters.length : at, 0, waiter);
      if (request.maxWaitMs !== undefined) void this.expireAfter(waiter, request.maxWaitMs);
      if (this.source.ranked && waiter.rank < this.refusedRank) this.wake?.();
      // With an immediate source and room, this grants before acquire returns.
      void this.pump();
    });
  }

  /** Callers waiting for a slot. */
  waiting(): number {
    return this.waiters.length;
  }

  /** Asks the source for the best waiter's slot until the line is empty; one pump runs at a time. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0) {
        const head = this.waiters[0];
        const askedAt = this.clock.monotonicMs();
        let answer: SlotAnswer;
        head.asking = true;
        try {
          const pending = this.source.take(head.rank);
          answer = pending instanceof Promise ? await pending : pending;
        } catch (error) {
          // The source cannot answer: nobody in the line would be served now.
          head.asking = false;
          for (const waiter of this.waiters.splice(0)) waiter.refuse(error);
          continue;
        }
        head.asking = false;
        if (answer.granted) {
          this.remove(head);
          head.grant();
        } else if ('refusal' in answer) {
          this.remove(head);
          head.refuse(answer.refusal);
        } else if (head.expired) {
          this.remove(head);
          head.refuse(new BudgetBusyError(answer.retryInMs));
        } else if (this.source.ranked && this.waiters[0].rank < head.rank) {
          // A better rank arrived during the question: it may be served where the head was not.
          continue;
        } else {
          this.refusedRank = head.rank;
          await this.nap(Math.max(0, askedAt + answer.retryInMs - this.clock.monotonicMs()));
          this.refusedRank = Infinity;
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Waits `ms`, or less when a caller the source might serve sooner arrives. */
  private nap(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      void this.clock.sleep(ms).then(() => resolve());
    }).finally(() => {
      this.wake = undefined;
    });
  }

  private async expireAfter(waiter: Waiter, maxWaitMs: number): Promise<void> {
    await this.clock.sleep(maxWaitMs);
    const place = this.waiters.indexOf(waiter);
    if (place === -1) return;
    if (waiter.asking) {
      waiter.expired = true;
      return;
    }
    this.waiters.splice(place, 1);
    waiter.refuse(new BudgetBusyError(this.source.retryAfterFor(place)));
  }

  private remove(waiter: Waiter): void {
    const place = this.waiters.indexOf(waiter);
    if (place !== -1) this.waiters.splice(place, 1);
  }
}
