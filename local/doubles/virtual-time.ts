import type { TimeSource } from '../../src/upstream/dart/request-budget';

/** Lets every promise continuation that is already due run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock that only moves when the test says so: `sleep` resolves when `advance`
 * reaches its deadline, so a minute of waiting takes no real time.
 */
export class VirtualTime implements TimeSource {
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
