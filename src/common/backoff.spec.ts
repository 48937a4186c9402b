import { backoffMs } from './backoff';

describe('backoffMs', () => {
  it('doubles from the base with each failed attempt', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffMs(attempt, { baseMs: 1000 }))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('never waits longer than the cap', () => {
    const policy = { baseMs: 60_000, maxMs: 15 * 60_000 };
    expect([4, 5, 6, 20].map((attempt) => backoffMs(attempt, policy))).toEqual([480_000, 900_000, 900_000, 900_000]);
  });

  it('adds up to the jitter fraction, rounded to whole milliseconds', () => {
    expect(backoffMs(2, { baseMs: 500, jitter: 0.2, random: () => 0 })).toBe(1000);
    expect(backoffMs(2, { baseMs: 500, jitter: 0.2, random: () => 0.5 })).toBe(1100);
    expect(backoffMs(1, { baseMs: 333, jitter: 0.2, random: () => 0.999 })).toBe(Math.round(333 * 1.1998));
  });

  it('applies the jitter after the cap', () => {
    expect(backoffMs(10, { baseMs: 1000, maxMs: 5000, jitter: 0.2, random: () => 0.5 })).toBe(5500);
  });
});
