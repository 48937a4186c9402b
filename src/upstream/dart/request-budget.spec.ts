import {
  BudgetBusyError,
  RequestBudget,
  type RequestBudgetOptions,
  SlidingWindowLog,
  type SlotAnswer,
  type SlotSource,
} from './request-budget';
import { FakeClock, settle } from '../../../test/support/fake-clock';

const MINUTE = 60_000;

/** The largest number of starts inside any 60-second window [t, t + 60 s). */
function busiestWindow(starts: number[]): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j < sorted.length && sorted[j] < sorted[i] + MINUTE) j++;
    busiest = Math.max(busiest, j - i);
  }
  return busiest;
}

/** Asks the budget for a slot and records the (virtual) time the slot was granted. */
function request(budget: RequestBudget, time: FakeClock, starts: number[]): Promise<void> {
  return budget.acquire().then(() => {
    starts.push(time.monotonicMs());
  });
}

/** The line over this process's sliding log (the local budget), with the log's count at hand. */
function windowed(perMinute: number, time: FakeClock, options?: RequestBudgetOptions): RequestBudget & { inWindow(): number } {
  const log = new SlidingWindowLog(perMinute, time);
  return Object.assign(new RequestBudget(log, time, options), { inWindow: () => log.inWindow() });
}

describe('RequestBudget over the sliding log', () => {
  it('lets 50 simultaneous callers through at most 10 per rolling minute, releasing them as the window slides', async () => {
    const time = new FakeClock();
    const budget = windowed(10, time);
    const starts: number[] = [];
    const all = Promise.all(Array.from({ length: 50 }, () => request(budget, time, starts)));

    await settle();
    expect(starts).toHaveLength(10);

    // Nobody waiting fails or sneaks in before the first start leaves the window.
    await time.elapse(MINUTE - 1);
    expect(starts).toHaveLength(10);
    await time.elapse(1);
    expect(starts).toHaveLength(20);

    await time.elapseUntil(4 * MINUTE);
    await all;
    expect(starts).toHaveLength(50);
    expect(busiestWindow(starts)).toBeLessThanOrEqual(10);
    // Waiting callers start the moment a slot frees up, not later.
    expect(starts).toEqual([0, MINUTE, 2 * MINUTE, 3 * MINUTE, 4 * MINUTE].flatMap((at) => Array<number>(10).fill(at)));
  });

  it('never exceeds the budget when calls arrive spread out and bunched', async () => {
    const time = new FakeClock();
    const budget = windowed(10, time);
    const starts: number[] = [];
    const pending: Array<Promise<void>> = [];
    // 50 arrivals at irregular moments over about two minutes: bursts and quiet stretches.
    const arrivals = Array.from({ length: 50 }, (_, i) => Math.floor(((i * 7919) % 50) * 2_500) + (i % 3) * 17);
    for (const at of [...arrivals].sort((a, b) => a - b)) {
      await time.elapseUntil(Math.max(at, time.monotonicMs()));
      pending.push(request(budget, time, starts));
    }
    await time.elapse(10 * MINUTE);
    await Promise.all(pending);

    expect(starts).toHaveLength(50);
    expect(busiestWindow(starts)).toBeLessThanOrEqual(10);
    // In arrival order: the line is first come, first served.
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('is a sliding window: a new calendar minute does not refill the budget', async () => {
    const time = new FakeClock();
    const budget = windowed(10, time);
    const starts: number[] = [];
    await time.elapseUntil(50_000);
    const burst = Array.from({ length: 10 }, () => request(budget, time, starts));
    await Promise.all(burst);

    // 61 s: a fixed per-minute counter would have reset at 60 s and let this through.
    await time.elapseUntil(61_000);
    const late = request(budget, time, starts);
    await time.elapseUntil(109_999);
    expect(starts).toHaveLength(10);
    await time.elapseUntil(110_000);
    await late;
    expect(starts[10]).toBe(110_000);
    expect(budget.inWindow()).toBe(1);
  });

  it('does not make a caller wait while the budget has room', async () => {
    const time = new FakeClock();
    const budget = windowed(3, time);
    await budget.acquire();
    await time.elapse(30_000);
    await budget.acquire();
    await budget.acquire();
    expect(time.pendingSleeps()).toBe(0);
    expect(budget.inWindow()).toBe(3);
    await time.elapse(30_000);
    expect(budget.inWindow()).toBe(2);
  });

  it('stays exact with a large budget over several windows', async () => {
    const time = new FakeClock();
    const budget = windowed(3_000, time);
    const starts: number[] = [];
    const all: Array<Promise<void>> = [];
    for (let window = 0; window < 3; window++) {
      for (let i = 0; i < 2_500; i++) all.push(request(budget, time, starts));
      await time.elapse(20_000);
    }
    await time.elapse(5 * MINUTE);
    await Promise.all(all);

    expect(starts).toHaveLength(7_500);
    expect(busiestWindow(starts)).toBe(3_000);
    // 2,500 at 0 s, 500 at 20 s, then the rest only as the first starts expire at 60 s and 80 s.
    expect(starts.filter((at) => at === 60_000)).toHaveLength(2_500);
    expect(starts.filter((at) => at === 80_000)).toHaveLength(500);
    expect(budget.inWindow()).toBe(0);
  });

  describe('the ranked, bounded line', () => {
    /** Asks for a slot at `rank`; records `label` when granted, or `label!` when refused. */
    function ask(budget: RequestBudget, log: string[], label: string, rank: number, maxWaitMs?: number) {
      return budget.acquire({ rank, maxWaitMs }).then(
        () => void log.push(label),
        (error: unknown) => {
          if (!(error instanceof BudgetBusyError)) throw error;
          log.push(`${label}!`);
          return error;
        },
      );
    }

    it('gives a freed slot to the best rank, however late it arrived, and equal ranks in arrival order', async () => {
      const time = new FakeClock();
      const budget = windowed(1, time);
      const log: string[] = [];
      await budget.acquire({ rank: 0 });
      const all = [ask(budget, log, 'read-1', 5), ask(budget, log, 'sync', 4), ask(budget, log, 'read-2', 5)];
      await time.elapse(30_000);
      all.push(ask(budget, log, 'monitor', 0), ask(budget, log, 'backfill', 3), ask(budget, log, 'fetch', 1));
      await settle();
      expect(budget.waiting()).toBe(6);

      for (let minute = 1; minute <= 6; minute++) await time.elapseUntil(minute * MINUTE);
      await Promise.all(all);
      expect(log).toEqual(['monitor', 'fetch', 'backfill', 'sync', 'read-1', 'read-2']);
    });

    it('refuses an arrival at a full line at once, unless it outranks the last waiter, who is refused instead', async () => {
      const time = new FakeClock();
      const budget = windowed(1, time, { maxWaiting: 2 });
      const log: string[] = [];
      await budget.acquire({ rank: 0 });
      const all = [ask(budget, log, 'sync', 4), ask(budget, log, 'read', 5)];
      await settle();

      all.push(ask(budget, log, 'late-read', 5));
      await settle();
      expect(log).toEqual(['late-read!']);

      all.push(ask(budget, log, 'monitor', 0));
      await settle();
      expect(log).toEqual(['late-read!', 'read!']);
      expect(budget.waiting()).toBe(2);

      await time.elapseUntil(2 * MINUTE);
      await Promise.all(all);
      expect(log).toEqual(['late-read!', 'read!', 'monitor', 'sync']);
    });

    it('refuses a caller whose maxWaitMs passes, with a retry hint, and serves the others', async () => {
      const time = new FakeClock();
      const budget = windowed(2, time);
      const log: string[] = [];
      await budget.acquire();
      await time.elapse(10_000);
      await budget.acquire();
      const job = ask(budget, log, 'job', 3);
      const read = ask(budget, log, 'read', 5, 2_000);
      await time.elapse(1_999);
      expect(log).toEqual([]);
      await time.elapse(1);
      const refusal = await read;
      expect(log).toEqual(['read!']);
      // One caller (the job) is ahead: the read could start once the second start leaves the window, at 70 s.
      expect(refusal).toBeInstanceOf(BudgetBusyError);
      expect((refusal as BudgetBusyError).retryAfterMs).toBe(70_000 - 12_000);

      await time.elapseUntil(MINUTE);
      await job;
      expect(log).toEqual(['read!', 'job']);
      expect(budget.waiting()).toBe(0);
    });

    it('never lets a waiter refused by its deadline take a slot later', async () => {
      const time = new FakeClock();
      const budget = windowed(1, time);
      const log: string[] = [];
      await budget.acquire();
      const read = ask(budget, log, 'read', 5, 1_000);
      await time.elapseUntil(2 * MINUTE);
      await read;
      expect(log).toEqual(['read!']);
      expect(budget.inWindow()).toBe(0);
    });
  });

  it('rejects a budget that is not a positive integer', () => {
    expect(() => new SlidingWindowLog(0)).toThrow(RangeError);
    expect(() => new SlidingWindowLog(1.5)).toThrow(RangeError);
  });
});

/**
 * A source that answers later, like the database: a log of starts where ranks from
 * `reservedFrom` on may not take the last `reserve` slots. Counts the questions in flight.
 */
class SharedSourceDouble implements SlotSource {
  readonly ranked = true;
  readonly starts: Array<{ at: number; rank: number }> = [];
  inFlight = 0;
  mostInFlight = 0;
  questions = 0;
  failWith?: Error;

  constructor(
    private readonly time: FakeClock,
    private readonly perMinute: number,
    private readonly reserve = 0,
    private readonly reservedFrom = 2,
  ) {}

  async take(rank: number): Promise<SlotAnswer> {
    this.questions++;
    this.inFlight++;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    try {
      // A round trip: a few turns of the event loop.
      for (let i = 0; i < 3; i++) await settle();
      if (this.failWith) throw this.failWith;
      const now = this.time.monotonicMs();
      const live = this.starts.filter((start) => start.at + MINUTE > now);
      const cap = rank >= this.reservedFrom ? this.perMinute - this.reserve : this.perMinute;
      if (live.length < cap) {
        this.starts.push({ at: now, rank });
        return { granted: true };
      }
      return { granted: false, retryInMs: live[live.length - cap].at + MINUTE - now };
    } finally {
      this.inFlight--;
    }
  }

  retryAfterFor(): number {
    return 1_000;
  }
}

/** Lets every question in flight be answered (each takes a few event-loop turns). */
async function flush(): Promise<void> {
  for (let i = 0; i < 30; i++) await settle();
}

/** Moves virtual time to `at` in small steps, letting the questions asked on the way be answered. */
async function runTo(time: FakeClock, at: number): Promise<void> {
  while (time.monotonicMs() < at) {
    await time.elapseUntil(Math.min(at, time.monotonicMs() + 500));
    await flush();
  }
}

describe('RequestBudget over a source that answers later (the shared budget)', () => {
  function ask(budget: RequestBudget, log: string[], label: string, rank: number, maxWaitMs?: number) {
    return budget.acquire({ rank, maxWaitMs }).then(
      () => void log.push(label),
      (error: unknown) => {
        log.push(`${label}!`);
        return error;
      },
    );
  }

  it('asks one question at a time, for its best waiter, and serves the ranks in order as slots free', async () => {
    const time = new FakeClock();
    const source = new SharedSourceDouble(time, 2);
    const budget = new RequestBudget(source, time);
    const log: string[] = [];
    const all = [
      ask(budget, log, 'read', 5),
      ask(budget, log, 'sync', 4),
      ask(budget, log, 'backfill', 3),
      ask(budget, log, 'analysis', 2),
      ask(budget, log, 'fetch', 1),
      ask(budget, log, 'monitor', 0),
    ];
    await flush();
    // The read asked first (the line was empty) and got a slot; the monitor, the best waiter, got the other.
    expect(log).toEqual(['read', 'monitor']);
    expect(budget.waiting()).toBe(4);

    await runTo(time, 2 * MINUTE);
    await Promise.all(all);
    expect(log).toEqual(['read', 'monitor', 'fetch', 'analysis', 'backfill', 'sync']);
    expect(source.mostInFlight).toBe(1);
    expect(busiestWindow(source.starts.map((start) => start.at))).toBeLessThanOrEqual(2);
  });

  it("wakes for a better rank the source may serve from its reserve, instead of sleeping out the worse rank's wait", async () => {
    const time = new FakeClock();
    // Ten a minute; ranks from 2 on may use nine.
    const source = new SharedSourceDouble(time, 10, 1);
    const budget = new RequestBudget(source, time);
    const log: string[] = [];
    await Promise.all(Array.from({ length: 9 }, (_, i) => ask(budget, log, `backfill-${i}`, 3)));
    const late = ask(budget, log, 'backfill-9', 3);
    await time.elapse(1_000);
    expect(log).toHaveLength(9);

    const monitor = ask(budget, log, 'monitor', 0);
    await flush();
    expect(log.at(-1)).toBe('monitor');
    // The backfill still waits for the first start to leave the window.
    await runTo(time, MINUTE - 1);
    expect(log).not.toContain('backfill-9');
    await runTo(time, MINUTE);
    await Promise.all([late, monitor]);
    expect(log.at(-1)).toBe('backfill-9');
  });

  it('refuses every waiter with the error when the source cannot answer, and serves again once it can', async () => {
    const time = new FakeClock();
    const source = new SharedSourceDouble(time, 5);
    const budget = new RequestBudget(source, time);
    const log: string[] = [];
    const down = new Error('database down');
    source.failWith = down;
    const refusals = await Promise.all([ask(budget, log, 'monitor', 0), ask(budget, log, 'backfill', 3), ask(budget, log, 'read', 5)]);
    expect(refusals).toEqual([down, down, down]);
    expect(source.questions).toBe(1);
    expect(budget.waiting()).toBe(0);

    source.failWith = undefined;
    await ask(budget, log, 'monitor', 0);
    expect(log).toEqual(['monitor!', 'backfill!', 'read!', 'monitor']);
  });

  it('keeps a waiter whose deadline passes during the question: a granted slot is its own, never lost or given twice', async () => {
    const time = new FakeClock();
    const source = new SharedSourceDouble(time, 1);
    const budget = new RequestBudget(source, time);
    const log: string[] = [];
    // The deadline falls while the first question is in flight (its answer takes a few event-loop turns).
    const read = ask(budget, log, 'read', 5, 0);
    await time.elapse(0);
    await flush();
    await read;
    expect(log).toEqual(['read']);
    expect(source.starts).toHaveLength(1);

    // With the minute spent, the next read is refused at its deadline.
    const second = ask(budget, log, 'read-2', 5, 0);
    await time.elapse(0);
    await flush();
    expect(await second).toBeInstanceOf(BudgetBusyError);
    expect(log).toEqual(['read', 'read-2!']);
    expect(budget.waiting()).toBe(0);
  });
});
