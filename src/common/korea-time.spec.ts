import {
  addMonths,
  isCalendarDate,
  isWeekday,
  kstDate,
  splitDateRange,
  startOfKstDay,
  startOfKstWeek,
  startOfNextKstDay,
  startOfNextKstWeek,
} from './korea-time';

describe('KST calendar days', () => {
  it('dates an instant in Korea, which is UTC+9', () => {
    expect(kstDate(new Date('2026-11-22T14:59:59.999Z'))).toBe('20261122');
    expect(kstDate(new Date('2026-11-22T15:00:00.000Z'))).toBe('20261123');
    expect(startOfNextKstDay(new Date('2026-11-22T14:00:00.000Z')).toISOString()).toBe('2026-11-22T15:00:00.000Z');
    expect(startOfKstDay('20261123').toISOString()).toBe('2026-11-22T15:00:00.000Z');
  });

  it('knows real dates, weekdays and month ends', () => {
    expect(['20260228', '20240229', '20260229', '2026022', '20261301'].map(isCalendarDate)).toEqual([true, true, false, false, false]);
    expect(['20261120', '20261121', '20261122', '20261123'].map(isWeekday)).toEqual([true, false, false, true]);
    expect(addMonths('20261130', 3)).toBe('20270228');
    expect(splitDateRange('20260101', '20260210', 30)).toEqual([
      { from: '20260101', to: '20260130' },
      { from: '20260131', to: '20260210' },
    ]);
  });
});

describe('startOfKstWeek', () => {
  it.each([
    ['Wednesday noon in Korea', '2026-11-18T03:00:00.000Z', '2026-11-15T15:00:00.000Z'],
    ['Monday 00:00 in Korea exactly', '2026-11-15T15:00:00.000Z', '2026-11-15T15:00:00.000Z'],
    ['the last millisecond of Sunday in Korea', '2026-11-22T14:59:59.999Z', '2026-11-15T15:00:00.000Z'],
    ['Monday 00:00 in Korea of the next week', '2026-11-22T15:00:00.000Z', '2026-11-22T15:00:00.000Z'],
    ['Sunday in UTC that is already Monday in Korea', '2026-11-22T23:00:00.000Z', '2026-11-22T15:00:00.000Z'],
    ['across a year end', '2027-01-01T00:00:00.000Z', '2026-12-27T15:00:00.000Z'],
  ])('is Monday 00:00 KST (Sunday 15:00 UTC) for %s', (_case, now, expected) => {
    expect(startOfKstWeek(new Date(now)).toISOString()).toBe(expected);
  });
});

describe('startOfNextKstWeek', () => {
  it('is seven days after the week start', () => {
    expect(startOfNextKstWeek(new Date('2026-11-15T15:00:00.000Z')).toISOString()).toBe('2026-11-22T15:00:00.000Z');
  });
});
