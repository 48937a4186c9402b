const DAY_MS = 24 * 60 * 60 * 1000;
const KST_OFFSET_MS = 9 * 60 * 60 * 1000;

/** The start of the quota week holding `now`: Monday 00:00 Korea time (Sunday 15:00 UTC). */
export function weekStartOf(now: Date): Date {
  const korea = new Date(now.getTime() + KST_OFFSET_MS);
  const daysSinceMonday = (korea.getUTCDay() + 6) % 7;
  const mondayInKorea = Date.UTC(korea.getUTCFullYear(), korea.getUTCMonth(), korea.getUTCDate()) - daysSinceMonday * DAY_MS;
  return new Date(mondayInKorea - KST_OFFSET_MS);
}

export function nextResetAfter(weekStart: Date): Date {
  return new Date(weekStart.getTime() + 7 * DAY_MS);
}
