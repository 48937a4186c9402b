/**
 * Korea Standard Time, the one clock of the disclosure system (dates are YYYYMMDD in KST), the
 * quota week, the DART daily budget, the daily crons and quiet hours: the only place KST is
 * written. KST is UTC+9 all year (no daylight saving).
 * Calendar dates are YYYYMMDD strings; their arithmetic is done at midnight UTC.
 */
const KST_OFFSET_HOURS = 9;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;

/** KST minus UTC, in milliseconds. */
export const KST_OFFSET_MS = KST_OFFSET_HOURS * HOUR_MS;

/** The IANA zone, for what takes a zone name (the crons, the push preferences' `time_zone`). */
export const KST_TIME_ZONE = 'Asia/Seoul';

/** The fixed offset as a PostgreSQL interval: without daylight saving it needs no time zone database. */
const KST_SQL_ZONE = `INTERVAL '+${String(KST_OFFSET_HOURS).padStart(2, '0')}:00'`;

/**
 * SQL: `expression` AT TIME ZONE KST. A timestamptz becomes its KST wall-clock time (a
 * timestamp); a KST wall-clock timestamp becomes its instant (a timestamptz).
 */
export function atKstSql(expression: string): string {
  return `(${expression} AT TIME ZONE ${KST_SQL_ZONE})`;
}

/** The calendar date in Korea of an instant, as YYYYMMDD. */
export function kstDate(instant: Date): string {
  return formatYmd(new Date(instant.getTime() + KST_OFFSET_MS));
}

/** The first instant of a calendar day in Korea (its KST midnight), for a YYYYMMDD date. */
export function startOfKstDay(ymd: string): Date {
  return new Date(parseYmd(ymd).getTime() - KST_OFFSET_MS);
}

/** The first instant of the next calendar day in Korea (KST midnight after `instant`). */
export function startOfNextKstDay(instant: Date): Date {
  return startOfKstDay(addDays(kstDate(instant), 1));
}

/** The start of the week holding `instant`: Monday 00:00 Korea time (Sunday 15:00 UTC). */
export function startOfKstWeek(instant: Date): Date {
  const korea = new Date(instant.getTime() + KST_OFFSET_MS);
  const daysSinceMonday = (korea.getUTCDay() + 6) % 7;
  const mondayInKorea = Date.UTC(korea.getUTCFullYear(), korea.getUTCMonth(), korea.getUTCDate()) - daysSinceMonday * DAY_MS;
  return new Date(mondayInKorea - KST_OFFSET_MS);
}

/** The start of the week after the one holding `instant` (seven days after its start). */
export function startOfNextKstWeek(instant: Date): Date {
  return new Date(startOfKstWeek(instant).getTime() + WEEK_MS);
}

/** True for a real calendar date written as YYYYMMDD. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{8}$/.test(value)) return false;
  return formatYmd(parseYmd(value)) === value;
}

/** Midnight UTC of a YYYYMMDD date (for date arithmetic only). */
export function parseYmd(value: string): Date {
  return new Date(Date.UTC(Number(value.slice(0, 4)), Number(value.slice(4, 6)) - 1, Number(value.slice(6, 8))));
}

export function formatYmd(date: Date): string {
  return date.toISOString().slice(0, 10).replace(/-/g, '');
}

export function addDays(ymd: string, days: number): string {
  return formatYmd(new Date(parseYmd(ymd).getTime() + days * DAY_MS));
}

/** `ymd` plus `months` calendar months, clamped to the end of a shorter month (Nov 30 + 3 months = Feb 28/29). */
export function addMonths(ymd: string, months: number): string {
  const start = parseYmd(ymd);
  const target = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(start.getUTCDate(), lastDay));
  return formatYmd(target);
}

/** Monday to Friday (public holidays are not known here). */
export function isWeekday(ymd: string): boolean {
  const day = parseYmd(ymd).getUTCDay();
  return day !== 0 && day !== 6;
}

/**
 * Splits an inclusive date range into consecutive ranges of at most `maxDays`
 * days, oldest first (the disclosure system limits ranges queried without a company).
 */
export function splitDateRange(from: string, to: string, maxDays: number): { from: string; to: string }[] {
  const ranges: { from: string; to: string }[] = [];
  for (let start = from; start <= to; start = addDays(start, maxDays)) {
    const end = addDays(start, maxDays - 1);
    ranges.push({ from: start, to: end < to ? end : to });
  }
  return ranges;
}
