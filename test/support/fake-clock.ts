import { Clock } from '../../src/common/clock';

/** Lets every promise continuation that is already due run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The one test double of Clock: time moves only when the test says so. The wall time starts at
 * `start` (the real current time by default) and `set` may put it anywhere, backwards too; the
 * monotonic time starts at 0 and moves, with the wall time, only by `advance` and `elapse`. A
 * `sleep` resolves when the monotonic time reaches its deadline, so a minute of waiting takes
 * no real time.
 */
export class FakeClock extends Clock {
  private wallMs: number;
  private monotonic = 0;
  private sleepers: Array<{ at: number; wake: () => void }> = [];

  constructor(start: Date = new Date()) {
    super();
    this.wallMs = start.getTime();
  }

  now(): Date {
    return new Date(this.wallMs);
  }

  monotonicMs(): number {
    return this.monotonic;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.sleepers.push({ at: this.monotonic + Math.max(0, ms), wake: resolve });
    });
  }

  /** Puts the wall time at `moment`, as an operator may; monotonic time and the sleepers do not move. */
  set(moment: Date): void {
    this.wallMs = moment.getTime();
  }

  /**
   * Moves time forward by `ms` at once and wakes every sleeper due by then, earliest first;
   * their continuations run after the caller yields. Nothing can read the old time after it.
   */
  advance(ms: number): void {
    this.moveBy(ms);
    const due = this.sleepers.filter((sleeper) => sleeper.at <= this.monotonic).sort((a, b) => a.at - b.at);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.at > this.monotonic);
    for (const sleeper of due) sleeper.wake();
  }

  /**
   * Lets `ms` pass one deadline at a time: each sleeper wakes at its own deadline and its
   * continuation runs (sleeping again, maybe) before time moves on.
   */
  async elapse(ms: number): Promise<void> {
    const end = this.monotonic + ms;
    for (;;) {
      await settle();
      const next = this.nextWakeAt();
      if (next === undefined || next > end) break;
      const first = this.sleepers.find((sleeper) => sleeper.at === next)!;
      this.sleepers = this.sleepers.filter((sleeper) => sleeper !== first);
      this.moveBy(next - this.monotonic);
      first.wake();
    }
    this.moveBy(end - this.monotonic);
    await settle();
  }

  /** `elapse` up to the monotonic time `at`. */
  async elapseUntil(at: number): Promise<void> {
    await this.elapse(at - this.monotonic);
  }

  /** The monotonic time the earliest sleeper wakes at; undefined when nobody sleeps. */
  nextWakeAt(): number | undefined {
    return this.sleepers.length === 0 ? undefined : Math.min(...this.sleepers.map((sleeper) => sleeper.at));
  }

  pendingSleeps(): number {
    return this.sleepers.length;
  }

  private moveBy(ms: number): void {
    if (ms < 0) throw new RangeError(`monotonic time never goes back (asked to move by ${ms} ms)`);
    this.monotonic += ms;
    this.wallMs += ms;
  }
}
