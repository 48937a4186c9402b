/** OpenDART dates are YYYYMMDD in Korea Standard Time (UTC+9, no daylight saving). */
const KST_OFFSET_MS = 9 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The KST calendar date of an instant, as YYYYMMDD. */
export function kstDateOf(instant: Date): string {
  return compact(new Date(instant.getTime() + KST_OFFSET_MS));
}

/** True for a real calendar date written as YYYYMMDD. */
export function isValidDate(text: string): boolean {
  if (!/^\d{8}$/.test(text)) return false;
  const date = parse(text);
  return compact(date) === text;
}

export function addDays(date: string, days: number): string {
  return compact(new Date(parse(date).getTime() + days * DAY_MS));
}

/** `date` plus `months` calendar months, clamped to the end of a shorter month (Nov 30 + 3 months = Feb 28/29). */
export function addMonths(date: string, months: number): string {
  const start = parse(date);
  const target = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(start.getUTCDate(), lastDay));
  return compact(target);
}

export function isWeekday(date: string): boolean {
  const day = parse(date).getUTCDay();
  return day !== 0 && day !== 6;
}

function parse(date: string): Date {
  return new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8))));
}

function compact(date: Date): string {
  return date.toISOString().slice(0, 10).replace(/-/g, '');
}
