import { DailyBudget } from './daily-budget';

/** 2026-03-10 23:59:59 in Korea (UTC+9). */
const LAST_SECOND_OF_DAY_KST = new Date('2026-03-10T14:59:59Z');
const NEXT_KST_MIDNIGHT = new Date('2026-03-10T15:00:00Z');

describe('DailyBudget', () => {
  let wall: Date;
  const clock = () => wall;
  beforeEach(() => {
    wall = new Date('2026-03-10T00:30:00Z'); // 09:30 KST
  });

  it('allows perDay requests in one KST day, then is closed until the next KST midnight', () => {
    const budget = new DailyBudget(3, clock);
    expect([budget.take(), budget.take(), budget.take()]).toEqual([true, true, true]);
    expect(budget.closedUntil()).toEqual(NEXT_KST_MIDNIGHT);
    expect(budget.take()).toBe(false);
    expect(budget.usedToday()).toBe(3);

    wall = LAST_SECOND_OF_DAY_KST;
    expect(budget.take()).toBe(false);
    wall = NEXT_KST_MIDNIGHT;
    expect(budget.closedUntil()).toBeNull();
    expect(budget.take()).toBe(true);
    expect(budget.usedToday()).toBe(1);
  });

  it('counts by the Korean calendar day, not the UTC one', () => {
    const budget = new DailyBudget(2, clock);
    wall = new Date('2026-03-10T14:00:00Z'); // 23:00 KST on the 10th, same UTC day as 09:30 KST
    budget.take();
    budget.take();
    expect(budget.take()).toBe(false);
    wall = new Date('2026-03-10T16:00:00Z'); // 01:00 KST on the 11th, still the 10th in UTC
    expect(budget.take()).toBe(true);
  });

  it('closes for the rest of the KST day when the upstream says the allowance is spent (020), whatever the count', () => {
    const budget = new DailyBudget(20_000, clock);
    budget.take();
    budget.markSpent();
    expect(budget.take()).toBe(false);
    expect(budget.closedUntil()).toEqual(NEXT_KST_MIDNIGHT);
    expect(budget.usedToday()).toBe(1);
    wall = NEXT_KST_MIDNIGHT;
    expect(budget.closedUntil()).toBeNull();
    expect(budget.take()).toBe(true);
  });

  it('closes early for a caller allowed only a share of the day', () => {
    const budget = new DailyBudget(10, clock);
    expect([budget.take(0.25), budget.take(0.25), budget.take(0.25)]).toEqual([true, true, false]);
    expect(budget.closedUntil(0.25)).toEqual(NEXT_KST_MIDNIGHT);
    expect(budget.closedUntil()).toBeNull();
    expect(budget.take()).toBe(true);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => new DailyBudget(0, clock)).toThrow(RangeError);
  });
});
