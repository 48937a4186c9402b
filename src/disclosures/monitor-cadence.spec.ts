import { inBusinessHours, monitorCallsPerDay, nextPollDelayMs } from './monitor-cadence';

// 2026-11-24 is a Tuesday. KST = UTC+9.
const kst = (iso: string) => new Date(`${iso}+09:00`);

describe('the monitor cadence', () => {
  it.each([
    ['2026-11-24T06:59:59', false],
    ['2026-11-24T07:00:00', true],
    ['2026-11-24T12:00:00', true],
    ['2026-11-24T18:59:59', true],
    ['2026-11-24T19:00:00', false],
    ['2026-11-28T10:00:00', false], // Saturday
    ['2026-11-29T10:00:00', false], // Sunday
  ])('%s KST is business hours: %s', (at, expected) => {
    expect(inBusinessHours(kst(at))).toBe(expected);
  });

  it('polls every busy interval in business hours and every idle interval outside them', () => {
    expect(nextPollDelayMs(kst('2026-11-24T10:00:00'), 5000, 60_000)).toBe(5000);
    expect(nextPollDelayMs(kst('2026-11-24T22:00:00'), 5000, 60_000)).toBe(60_000);
    expect(nextPollDelayMs(kst('2026-11-28T10:00:00'), 5000, 60_000)).toBe(60_000);
  });

  it('never sleeps past the start of the next business window', () => {
    expect(nextPollDelayMs(kst('2026-11-24T06:59:30'), 5000, 60_000)).toBe(30_000);
    // Friday evening to Monday morning: idle polls, the last one landing on Monday 07:00.
    expect(nextPollDelayMs(kst('2026-11-30T06:59:50'), 5000, 60_000)).toBe(10_000);
    expect(nextPollDelayMs(kst('2026-11-27T19:00:00'), 5000, 600_000)).toBe(600_000);
  });

  it('costs about 9,400 calls on a weekday and 1,440 on a weekend day at the defaults', () => {
    expect(monitorCallsPerDay(5000, 60_000, true)).toBe(8640 + 720);
    expect(monitorCallsPerDay(5000, 60_000, false)).toBe(1440);
  });
});
