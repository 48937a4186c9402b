import { Injectable } from '@nestjs/common';

/**
 * The time source of the service. Everything that compares against "now"
 * (token expiry, quota weeks, downgrade timers) asks the clock, so tests can move it.
 */
export abstract class Clock {
  abstract now(): Date;

  nowMs(): number {
    return this.now().getTime();
  }
}

@Injectable()
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
