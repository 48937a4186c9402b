import { kstDate, startOfNextKstDay } from '../../common/korea-time';

/**
 * The key's daily allowance (OpenDART: about 20,000 calls a day), counted per KST
 * day on the wall clock. The day is closed when the count reaches `perDay`, or
 * earlier when the upstream says its own count is spent (status 020); it opens
 * again at the next KST midnight.
 */
export class DailyBudget {
  private day = '';
  private used = 0;
  /** The KST day the upstream declared spent. */
  private spentDay: string | null = null;

  constructor(
    readonly perDay: number,
    private readonly wallClock: () => Date,
  ) {
    if (!Number.isInteger(perDay) || perDay < 1) throw new RangeError(`perDay must be a positive integer (got ${perDay})`);
  }

  /**
   * Counts one request against today; false (and nothing counted) when today is closed
   * for a caller allowed only `share` of the day (1: all of it).
   */
  take(share = 1): boolean {
    this.rollOver();
    if (this.isClosed(share)) return false;
    this.used += 1;
    return true;
  }

  /** The upstream answered 020: no more calls today, whatever our own count says. */
  markSpent(): void {
    this.rollOver();
    this.spentDay = this.day;
  }

  /** When calls (of a caller allowed `share` of the day) are allowed again, or null while they are allowed now. */
  closedUntil(share = 1): Date | null {
    this.rollOver();
    return this.isClosed(share) ? startOfNextKstDay(this.wallClock()) : null;
  }

  usedToday(): number {
    this.rollOver();
    return this.used;
  }

  private isClosed(share: number): boolean {
    return this.spentDay === this.day || this.used >= Math.max(1, Math.floor(this.perDay * share));
  }

  private rollOver(): void {
    const today = kstDate(this.wallClock());
    if (today === this.day) return;
    this.day = today;
    this.used = 0;
  }
}
