import { CronJob } from 'cron';
import { KST_TIME_ZONE } from '../common/korea-time';
import { dailyKstTime, JOB_CATALOG, jobDeclaration, type CronJobName } from './job-catalog';

function nextTicks(name: CronJobName, count: number): Date[] {
  const job = CronJob.from({ cronTime: jobDeclaration(name).schedule.cron, timeZone: KST_TIME_ZONE, onTick: () => undefined });
  return job.nextDates(count).map((tick) => tick.toJSDate());
}

describe('the job catalog', () => {
  it('declares each job once', () => {
    const names = JOB_CATALOG.map((job) => job.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives each job of one instance its own lock key, the keys earlier versions used', () => {
    const keys = Object.fromEntries(JOB_CATALOG.filter((job) => job.runsOn === 'one-instance').map((job) => [job.name, job.lockKey]));
    // Changing one would let an old and a new instance both run the job during a deploy.
    expect(keys).toEqual({
      'disclosure-monitor': 1,
      'stock-sync': 2,
      backfill: 3,
      'downgrade-cleanup': 4,
      'rate-limit-sweep': 5,
      retention: 6,
    });
  });

  it('runs the downgrade sweep every minute, so a lapse and a due cleanup are handled within a minute, not the next day', () => {
    const ticks = nextTicks('downgrade-cleanup', 5).map((tick) => tick.getTime());
    expect(ticks.slice(1).map((tick, i) => tick - ticks[i])).toEqual([60_000, 60_000, 60_000, 60_000]);
  });

  it('runs retention daily at 04:45 KST and the stock sync at 05:00 KST (19:45 and 20:00 UTC)', () => {
    for (const [name, utc] of [
      ['retention', [19, 45]],
      ['stock-sync', [20, 0]],
    ] as const) {
      const [first, second] = nextTicks(name, 2);
      expect([first.getUTCHours(), first.getUTCMinutes(), first.getUTCSeconds()]).toEqual([...utc, 0]);
      expect(second.getTime() - first.getTime()).toBe(24 * 60 * 60 * 1000);
    }
  });

  it("says the daily jobs' times as the start-up summary prints them", () => {
    expect([dailyKstTime('retention'), dailyKstTime('stock-sync')]).toEqual(['04:45', '05:00']);
  });
});
