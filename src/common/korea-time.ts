/** Korea Standard Time is UTC+9 all year (no daylight saving). */
const KST_OFFSET_MS = 9 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The calendar date in Korea of an instant, as YYYYMMDD. */
export function kstDate(instant: Date): string {
  return new Date(instant.getTime() + KST_OFFSET_MS).toISOString().slice(0, 10).replace(/-/g, '');
}

/** The first instant of the next calendar day in Korea (KST midnight after `instant`). */
export function startOfNextKstDay(instant: Date): Date {
  return new Date(parseYmd(addDays(kstDate(instant), 1)).getTime() - KST_OFFSET_MS);
}

/** True for a real calendar date written as YYYYMMDD. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{8}$/.test(value)) return false;
  const date = parseYmd(value);
  return date.toISOString().slice(0, 10).replace(/-/g, '') === value;
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
