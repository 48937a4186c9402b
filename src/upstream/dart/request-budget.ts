/** Where the budget reads the time and how it waits; tests pass a virtual pair. */
export interface TimeSource {
  /** Milliseconds on a scale that never goes back (a wall clock may be set back). */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemTime: TimeSource = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

const WINDOW_MS = 60_000;

/**
 * At most `perMinute` request starts in any rolling 60-second window: a sliding
 * log of the last starts. A fixed per-minute counter would allow twice the budget
 * across a minute boundary, which is exactly what gets an OpenDART key blocked.
 *
 * Callers queue in arrival order and wait for a slot instead of failing.
 */
export class RequestBudget {
  /** Start times, oldest first; those before `head` have left the window. */
  private starts: number[] = [];
  private head = 0;
  /** The tail of the waiting line: each caller takes its slot after the one before it. */
  private line: Promise<void> = Promise.resolve();

  constructor(
    readonly perMinute: number,
    private readonly time: TimeSource = systemTime,
  ) {
    if (!Number.isInteger(perMinute) || perMinute < 1) throw new RangeError(`perMinute must be a positive integer (got ${perMinute})`);
  }

  /** Resolves when a request may start now; the start is recorded against the budget. */
  acquire(): Promise<void> {
    const slot = this.line.then(() => this.takeSlot());
    // A failed sleep must not stall everyone queued behind it.
    this.line = slot.catch(() => undefined);
    return slot;
  }

  /** Requests started in the 60 seconds up to now. */
  inWindow(): number {
    this.forgetExpired(this.time.now());
    return this.starts.length - this.head;
  }

  private async takeSlot(): Promise<void> {
    for (;;) {
      const now = this.time.now();
      this.forgetExpired(now);
      if (this.starts.length - this.head < this.perMinute) {
        this.starts.push(now);
        return;
      }
      // The oldest start leaves the window exactly WINDOW_MS after it happened.
      await this.time.sleep(this.starts[this.head] + WINDOW_MS - now);
    }
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
