import { addDays, isWeekday, kstDate, startOfKstDay } from '../common/korea-time';

/** Filings arrive in bulk on KST weekdays from 07:00 to 19:00; the monitor polls fast then. */
const BUSINESS_START_HOUR = 7;
const BUSINESS_END_HOUR = 19;
const HOUR_MS = 60 * 60 * 1000;

/** The start of the business window on the KST day `ymd`. */
function businessStart(ymd: string): number {
  return startOfKstDay(ymd).getTime() + BUSINESS_START_HOUR * HOUR_MS;
}

/** Inside the window: weekdays (public holidays are not known) from 07:00 to 19:00 KST. */
export function inBusinessHours(now: Date): boolean {
  const today = kstDate(now);
  const start = businessStart(today);
  return isWeekday(today) && now.getTime() >= start && now.getTime() < start + (BUSINESS_END_HOUR - BUSINESS_START_HOUR) * HOUR_MS;
}

/**
 * How long the monitor waits before its next poll: `busyMs` in business hours, else
 * `idleMs`, but never past the start of the next business window, so the first poll of
 * a business morning is on time.
 */
export function nextPollDelayMs(now: Date, busyMs: number, idleMs: number): number {
  if (inBusinessHours(now)) return busyMs;
  let day = kstDate(now);
  while (!isWeekday(day) || businessStart(day) <= now.getTime()) day = addDays(day, 1);
  return Math.max(0, Math.min(idleMs, businessStart(day) - now.getTime()));
}

/**
 * Upstream calls a day of a monitor that finds nothing new (one `list.json` a poll), for the
 * documentation against the key's daily limit.
 */
export function monitorCallsPerDay(busyMs: number, idleMs: number, weekday: boolean): number {
  const businessMs = weekday ? (BUSINESS_END_HOUR - BUSINESS_START_HOUR) * HOUR_MS : 0;
  return Math.ceil(businessMs / busyMs) + Math.ceil((24 * HOUR_MS - businessMs) / idleMs);
}
