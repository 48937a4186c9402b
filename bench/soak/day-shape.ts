import { Prng } from '../../local/dart-sandbox/prng';

/**
 * The shape of a trading day's filings, 06:00 to 22:00 KST: a trickle before the open, a steady
 * market session, and the after-close peak (15:30–18:00) that carries about half of the day.
 * Weights are filings per half hour, relative.
 */
const DAY_START_HOUR = 6;
const DAY_END_HOUR = 22;
const HALF_HOUR_WEIGHTS: readonly number[] = [
  // 06:00 … 08:30
  0.2, 0.3, 0.8, 1.2, 1.8, 2.2,
  // 09:00 … 11:30
  3, 3, 3, 3, 2.6, 2.4,
  // 12:00 … 14:30
  2, 2, 2.4, 2.6, 3, 3,
  // 15:00, 15:30 (the close), 16:00 … 17:30: the after-close peak
  3, 8, 12, 12, 14, 14,
  // 18:00 … 21:30
  5, 3.4, 2, 1.5, 1, 0.7, 0.4, 0.3,
];

/** Where the after-close peak lies in the modelled day, in hours. */
export const PEAK_HOURS = { from: 15.5, to: 18 } as const;

/** The modelled hour of the day (e.g. 15.5 for 15:30 KST) at `offsetMs` into a run of `runMs`. */
export function dayHourAt(offsetMs: number, runMs: number): number {
  return DAY_START_HOUR + (offsetMs / runMs) * (DAY_END_HOUR - DAY_START_HOUR);
}

/** The run offset (ms) of a modelled hour. */
export function offsetOfDayHour(hour: number, runMs: number): number {
  return ((hour - DAY_START_HOUR) / (DAY_END_HOUR - DAY_START_HOUR)) * runMs;
}

/** `HH:MM` of a modelled hour. */
export function dayClock(hour: number): string {
  const minutes = Math.round(hour * 60);
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * When each of `count` filings is published, as offsets from the start of a run of `runMs`:
 * random moments drawn from the day's shape (sorted), the same for the same seed.
 */
export function filingSchedule(count: number, runMs: number, seed: number): number[] {
  const prng = new Prng(seed);
  const total = HALF_HOUR_WEIGHTS.reduce((sum, weight) => sum + weight, 0);
  const slotMs = runMs / HALF_HOUR_WEIGHTS.length;
  const offsets: number[] = [];
  for (let i = 0; i < count; i++) {
    let roll = prng.next() * total;
    let slot = 0;
    while (slot < HALF_HOUR_WEIGHTS.length - 1 && roll >= HALF_HOUR_WEIGHTS[slot]) roll -= HALF_HOUR_WEIGHTS[slot++];
    offsets.push((slot + prng.next()) * slotMs);
  }
  return offsets.sort((a, b) => a - b);
}

/** Share of the day's filings in the after-close peak. */
export function peakShare(): number {
  const total = HALF_HOUR_WEIGHTS.reduce((sum, weight) => sum + weight, 0);
  const from = (PEAK_HOURS.from - DAY_START_HOUR) * 2;
  const to = (PEAK_HOURS.to - DAY_START_HOUR) * 2;
  return HALF_HOUR_WEIGHTS.slice(from, to).reduce((sum, weight) => sum + weight, 0) / total;
}
