import { atKstSql } from '../common/korea-time';

/** Quiet hours of a user, as KST wall-clock times `HH:MM`; the window may cross midnight (22:00–07:00). */
export interface QuietHours {
  start: string;
  end: string;
}

/** `HH:MM`, 00:00 to 23:59. */
export const WALL_CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * SQL: the end of the quiet window of `prefs` (a push_preferences row, or its columns all
 * NULL through a LEFT JOIN) that the instant `now` falls in, as a timestamptz; NULL when
 * `now` is outside the window or there is none. Start inclusive, end exclusive.
 */
export function quietWindowEndSql(now: string, prefs: string): string {
  const local = atKstSql(`${now}::timestamptz`);
  const time = `${local}::time`;
  const endOn = (day: string) => atKstSql(`(${day} + ${prefs}.quiet_end)`);
  return `CASE
    WHEN ${prefs}.quiet_start < ${prefs}.quiet_end AND ${time} >= ${prefs}.quiet_start AND ${time} < ${prefs}.quiet_end THEN ${endOn(`${local}::date`)}
    WHEN ${prefs}.quiet_start > ${prefs}.quiet_end AND ${time} >= ${prefs}.quiet_start THEN ${endOn(`(${local}::date + 1)`)}
    WHEN ${prefs}.quiet_start > ${prefs}.quiet_end AND ${time} < ${prefs}.quiet_end THEN ${endOn(`${local}::date`)}
  END`;
}
