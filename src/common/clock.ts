import { Injectable } from '@nestjs/common';

/**
 * The time source of the service, and the one abstraction of time. Everything that compares
 * against "now" (token expiry, quota weeks, downgrade timers, KST days) asks `now`; whatever
 * measures a wait or a window (the disclosure-system budget, its retries) uses `monotonicMs`
 * and `sleep`, because a wall clock may be set back. Tests pass FakeClock
 * (test/support/fake-clock.ts), which moves only when told.
 */
export abstract class Clock {
  abstract now(): Date;

  nowMs(): number {
    return this.now().getTime();
  }

  /** Milliseconds on a scale that never goes back; only differences between two readings mean anything. */
  abstract monotonicMs(): number;

  /** Resolves once `ms` have passed on this clock. */
  abstract sleep(ms: number): Promise<void>;
}

@Injectable()
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }

  monotonicMs(): number {
    return performance.now();
  }

  sleep(ms: number): Promise<void> {
    // Unref'd: a pending wait (a budget window, a read's deadline) never keeps a process alive by itself.
    return new Promise((resolve) => setTimeout(resolve, ms).unref());
  }
}
