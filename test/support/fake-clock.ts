import { Clock } from '../../src/common/clock';

/** A clock the test moves by hand. Starts at the real current time. */
export class FakeClock extends Clock {
  private current: number;

  constructor(start: Date = new Date()) {
    super();
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(moment: Date): void {
    this.current = moment.getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
