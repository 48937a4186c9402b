/** When the daily jobs run, as KST wall-clock `HH:MM`: one place for their crons and the start-up summary. */
export const DAILY_JOB_TIMES = {
  retention: '04:45',
  stockSync: '05:00',
} as const;

/** The cron expression (seconds first) of every day at a KST `HH:MM`; the jobs' crons run in KST_TIME_ZONE. */
export function dailyCron(time: string): string {
  const [hour, minute] = time.split(':').map(Number);
  return `0 ${minute} ${hour} * * *`;
}
