import { BudgetBusyError, RequestBudget } from './request-budget';
import { settle, VirtualTime } from '../../../local/doubles/virtual-time';

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
function request(budget: RequestBudget, time: VirtualTime, starts: number[]): Promise<void> {
  return budget.acquire().then(() => {
    starts.push(time.now());
  });
}

describe('RequestBudget', () => {
  it('lets 50 simultaneous callers through at most 10 per rolling minute, releasing them as the window slides', async () => {
    const time = new VirtualTime();
    const budget = new RequestBudget(10, time);
    const starts: number[] = [];
    const all = Promise.all(Array.from({ length: 50 }, () => request(budget, time, starts)));

    await settle();
    expect(starts).toHaveLength(10);

    // Nobody waiting fails or sneaks in before the first start leaves the window.
    await time.advance(MINUTE - 1);
    expect(starts).toHaveLength(10);
    await time.advance(1);
    expect(starts).toHaveLength(20);

    await time.advanceTo(4 * MINUTE);
    await all;
    expect(starts).toHaveLength(50);
    expect(busiestWindow(starts)).toBeLessThanOrEqual(10);
    // Waiting callers start the moment a slot frees up, not later.
    expect(starts).toEqual([0, MINUTE, 2 * MINUTE, 3 * MINUTE, 4 * MINUTE].flatMap((at) => Array<number>(10).fill(at)));
  });

  it('never exceeds the budget when calls arrive spread out and bunched', async () => {
    const time = new VirtualTime();
    const budget = new RequestBudget(10, time);
    const starts: number[] = [];
    const pending: Array<Promise<void>> = [];
    // 50 arrivals at irregular moments over about two minutes: bursts and quiet stretches.
    const arrivals = Array.from({ length: 50 }, (_, i) => Math.floor(((i * 7919) % 50) * 2_500) + (i % 3) * 17);
    for (const at of [...arrivals].sort((a, b) => a - b)) {
      await time.advanceTo(Math.max(at, time.now()));
      pending.push(request(budget, time, starts));
    }
    await time.advance(10 * MINUTE);
    await Promise.all(pending);

    expect(starts).toHaveLength(50);
    expect(busiestWindow(starts)).toBeLessThanOrEqual(10);
    // In arrival order: the line is first come, first served.
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('is a sliding window: a new calendar minute does not refill the budget', async () => {
    const time = new VirtualTime();
    const budget = new RequestBudget(10, time);
    const starts: number[] = [];
    await time.advanceTo(50_000);
    const burst = Array.from({ length: 10 }, () => request(budget, time, starts));
    await Promise.all(burst);

    // 61 s: a fixed per-minute counter would have reset at 60 s and let this through.
    await time.advanceTo(61_000);
    const late = request(budget, time, starts);
    await time.advanceTo(109_999);
    expect(starts).toHaveLength(10);
    await time.advanceTo(110_000);
    await late;
    expect(starts[10]).toBe(110_000);
    expect(budget.inWindow()).toBe(1);
  });

  it('does not make a caller wait while the budget has room', async () => {
    const time = new VirtualTime();
    const budget = new RequestBudget(3, time);
    await budget.acquire();
    await time.advance(30_000);
    await budget.acquire();
    await budget.acquire();
    expect(time.pendingSleeps()).toBe(0);
    expect(budget.inWindow()).toBe(3);
    await time.advance(30_000);
    expect(budget.inWindow()).toBe(2);
  });

  it('stays exact with a large budget over several windows', async () => {
    const time = new VirtualTime();
    const budget = new RequestBudget(3_000, time);
    const starts: number[] = [];
    const all: Array<Promise<void>> = [];
    for (let window = 0; window < 3; window++) {
      for (let i = 0; i < 2_500; i++) all.push(request(budget, time, starts));
      await time.advance(20_000);
    }
    await time.advance(5 * MINUTE);
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
      const time = new VirtualTime();
      const budget = new RequestBudget(1, time);
      const log: string[] = [];
      await budget.acquire({ rank: 0 });
      const all = [
        ask(budget, log, 'read-1', 5),
        ask(budget, log, 'sync', 4),
        ask(budget, log, 'read-2', 5),
      ];
      await time.advance(30_000);
      all.push(ask(budget, log, 'monitor', 0), ask(budget, log, 'backfill', 3), ask(budget, log, 'fetch', 1));
      await settle();
      expect(budget.waiting()).toBe(6);

      for (let minute = 1; minute <= 6; minute++) await time.advanceTo(minute * MINUTE);
      await Promise.all(all);
      expect(log).toEqual(['monitor', 'fetch', 'backfill', 'sync', 'read-1', 'read-2']);
    });

    it('refuses an arrival at a full line at once, unless it outranks the last waiter, who is refused instead', async () => {
      const time = new VirtualTime();
      const budget = new RequestBudget(1, time, { maxWaiting: 2 });
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

      await time.advanceTo(2 * MINUTE);
      await Promise.all(all);
      expect(log).toEqual(['late-read!', 'read!', 'monitor', 'sync']);
    });

    it('refuses a caller whose maxWaitMs passes, with a retry hint, and serves the others', async () => {
      const time = new VirtualTime();
      const budget = new RequestBudget(2, time);
      const log: string[] = [];
      await budget.acquire();
      await time.advance(10_000);
      await budget.acquire();
      const job = ask(budget, log, 'job', 3);
      const read = ask(budget, log, 'read', 5, 2_000);
      await time.advance(1_999);
      expect(log).toEqual([]);
      await time.advance(1);
      const refusal = await read;
      expect(log).toEqual(['read!']);
      // One caller (the job) is ahead: the read could start once the second start leaves the window, at 70 s.
      expect(refusal).toBeInstanceOf(BudgetBusyError);
      expect((refusal as BudgetBusyError).retryAfterMs).toBe(70_000 - 12_000);

      await time.advanceTo(MINUTE);
      await job;
      expect(log).toEqual(['read!', 'job']);
      expect(budget.waiting()).toBe(0);
    });

    it('never lets a waiter refused by its deadline take a slot later', async () => {
      const time = new VirtualTime();
      const budget = new RequestBudget(1, time);
      const log: string[] = [];
      await budget.acquire();
      const read = ask(budget, log, 'read', 5, 1_000);
      await time.advanceTo(2 * MINUTE);
      await read;
      expect(log).toEqual(['read!']);
      expect(budget.inWindow()).toBe(0);
    });
  });

  it('rejects a budget that is not a positive integer', () => {
    expect(() => new RequestBudget(0)).toThrow(RangeError);
    expect(() => new RequestBudget(1.5)).toThrow(RangeError);
  });
});
