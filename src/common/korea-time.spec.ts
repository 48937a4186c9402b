import { nextResetAfter, weekStartOf } from './quota-week';

describe('weekStartOf', () => {
  it.each([
    ['Wednesday noon in Korea', '2026-11-18T03:00:00.000Z', '2026-11-15T15:00:00.000Z'],
    ['Monday 00:00 in Korea exactly', '2026-11-15T15:00:00.000Z', '2026-11-15T15:00:00.000Z'],
    ['the last millisecond of Sunday in Korea', '2026-11-22T14:59:59.999Z', '2026-11-15T15:00:00.000Z'],
    ['Monday 00:00 in Korea of the next week', '2026-11-22T15:00:00.000Z', '2026-11-22T15:00:00.000Z'],
    ['Sunday in UTC that is already Monday in Korea', '2026-11-22T23:00:00.000Z', '2026-11-22T15:00:00.000Z'],
    ['across a year end', '2027-01-01T00:00:00.000Z', '2026-12-27T15:00:00.000Z'],
  ])('is Monday 00:00 KST (Sunday 15:00 UTC) for %s', (_case, now, expected) => {
    expect(weekStartOf(new Date(now)).toISOString()).toBe(expected);
  });
});

describe('nextResetAfter', () => {
  it('is seven days after the week start', () => {
    expect(nextResetAfter(new Date('2026-11-15T15:00:00.000Z')).toISOString()).toBe('2026-11-22T15:00:00.000Z');
  });
});
