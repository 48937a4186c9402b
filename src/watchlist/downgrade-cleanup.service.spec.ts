import { CronJob } from 'cron';
import { KST_TIME_ZONE } from '../common/korea-time';
import { DOWNGRADE_SWEEP_CRON } from './downgrade-cleanup.service';

describe('the downgrade sweep', () => {
  it('runs every minute, so a lapse and a due cleanup are handled within a minute, not the next day', () => {
    const job = CronJob.from({ cronTime: DOWNGRADE_SWEEP_CRON, timeZone: KST_TIME_ZONE, onTick: () => undefined });
    const ticks = job.nextDates(5).map((tick) => tick.toMillis());
    expect(ticks.slice(1).map((tick, i) => tick - ticks[i])).toEqual([60_000, 60_000, 60_000, 60_000]);
  });
});
