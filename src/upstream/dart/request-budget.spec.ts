import { RequestBudget, type TimeSource } from './request-budget';

/** Lets every promise continuation that is already due run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock that only moves when the test says so: `sleep` resolves when `advance`
 * reaches its deadline, so a minute of waiting takes no real time.
 */
class VirtualTime implements TimeSource {
  private current = 0;
  private timers: Array<{ at: number; resolve: () => void }> = [];

  readonly now = (): number => this.current;

  readonly sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      this.timers.push({ at: this.current + Math.max(0, ms), resolve });
    });

  /** Moves the clock forward by `ms`, firing due sleepers in deadline order and letting each one's continuation run. */
  async advance(ms: number): Promise<void> {
    const end = this.current + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = due.at;
      due.resolve();
    }
    this.current = end;
    await settle();
  }

  async advanceTo(at: number): Promise<void> {
    await this.advance(at - this.current);
  }

  pendingSleeps(): number {
    return this.timers.length;
  }
}

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

  it('rejects a budget that is not a positive integer', () => {
    expect(() => new RequestBudget(0)).toThrow(RangeError);
    expect(() => new RequestBudget(1.5)).toThrow(RangeError);
  });
});
