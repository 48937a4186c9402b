/**
 * Every background job of the service, declared once: when it runs, where in the fleet,
 * how many at once, what happens after a failure, and whether it reports progress.
 * The features only supply the work (JobScheduler.schedule, .runs, .queue); the
 * machinery that runs each kind is in this folder (docs/jobs.md).
 */

/** When a job runs. Crons are six fields (seconds first) in Asia/Seoul. */
export type JobSchedule =
  /** At the cron's times; a tick that comes while the previous run is still going is skipped. */
  | { kind: 'cron'; cron: string; also?: 'on-demand' }
  /** Again after each run, after a delay the job computes (a poll loop); runs never overlap. */
  | { kind: 'loop'; delay: string }
  /** When an operator starts a run (admin API). */
  | { kind: 'on-demand' }
  /** Rows of a shared queue, claimed under a lease; woken by an event and by a poll. */
  | { kind: 'queue'; pollIntervalMs: number; wokenBy: string };

/** What happens after a failed run. */
export type JobRetries =
  /** The failure is logged and recorded; the next scheduled run is the retry. */
  | { kind: 'next-run' }
  /** A run stopped by a resign or a crash resumes from its last checkpoint on the next leader; a failed run stays failed. */
  | { kind: 'resume-from-checkpoint' }
  /** Each item is retried with an exponential backoff from `baseSetting` up to `maxBackoffMs`, at most `attemptsSetting` times. */
  | { kind: 'per-item-backoff'; attemptsSetting: string; baseSetting: string; maxBackoffMs: number };

export interface JobDeclaration {
  name: string;
  summary: string;
  schedule: JobSchedule;
  /**
   * `one-instance`: only the instance that holds the job's advisory lock runs it
   * (src/fleet/singleton-jobs.ts). `every-instance`: each instance runs it, and leases
   * on the queue's rows share the work.
   */
  runsOn: 'one-instance' | 'every-instance';
  /**
   * One-instance jobs: the second key of the job's advisory lock (ADVISORY_LOCKS.SINGLETON_JOBS
   * is the first). Never reuse or change one: old and new versions share the locks during a deploy.
   */
  lockKey?: number;
  /** Runs at once: a number, or the variable that sets it. */
  concurrency: number | string;
  retries: JobRetries;
  /** Progress (phase, processed, total) of each run, kept in job_runs. */
  progress: boolean;
  /** The variable that switches the job on, when it can be off. */
  enabledBy?: string;
}

const MINUTE_MS = 60_000;

export const JOB_CATALOG = [
  {
    name: 'disclosure-monitor',
    lockKey: 1,
    summary: "Polls today's filings from the disclosure system and stores the new ones",
    schedule: {
      kind: 'loop',
      delay: 'DISCLOSURE_MONITOR_INTERVAL_MS in KST business hours, DISCLOSURE_MONITOR_IDLE_INTERVAL_MS otherwise',
    },
    runsOn: 'one-instance',
    concurrency: 1,
    retries: { kind: 'next-run' },
    progress: false,
    enabledBy: 'DISCLOSURE_MONITOR_AUTO_START',
  },
  {
    name: 'stock-sync',
    lockKey: 2,
    summary: 'Syncs the stock master with the corp codes of the disclosure system (incremental daily, bootstrap on demand)',
    schedule: { kind: 'cron', cron: '0 0 5 * * *', also: 'on-demand' },
    runsOn: 'one-instance',
    concurrency: 1,
    retries: { kind: 'resume-from-checkpoint' },
    progress: true,
    enabledBy: 'STOCK_SYNC_SCHEDULER_ENABLED',
  },
  {
    name: 'backfill',
    lockKey: 3,
    summary: 'Fetches a range of past filings and enqueues their analyses',
    schedule: { kind: 'on-demand' },
    runsOn: 'one-instance',
    concurrency: 1,
    retries: { kind: 'resume-from-checkpoint' },
    progress: true,
  },
  {
    name: 'downgrade-cleanup',
    lockKey: 4,
    summary: 'Records lapsed subscriptions and trims watchlists 7 days after a downgrade',
    schedule: { kind: 'cron', cron: '0 * * * * *' },
    runsOn: 'one-instance',
    concurrency: 1,
    retries: { kind: 'next-run' },
    progress: false,
  },
  {
    name: 'rate-limit-sweep',
    lockKey: 5,
    summary: 'Deletes the shared rate-limit buckets nobody used since they filled up again',
    schedule: { kind: 'cron', cron: '30 * * * * *' },
    runsOn: 'one-instance',
    concurrency: 1,
    retries: { kind: 'next-run' },
    progress: false,
    enabledBy: 'RATE_LIMIT_STORE=postgres',
  },
  {
    name: 'retention',
    lockKey: 6,
    summary: 'Deletes push deliveries, store notifications and ad-reward records past their retention',
    schedule: { kind: 'cron', cron: '0 45 4 * * *' },
    runsOn: 'one-instance',
    concurrency: 1,
    retries: { kind: 'next-run' },
    progress: false,
  },
  {
    name: 'analysis',
    summary: 'Analyses each new filing once: the one-line summary and the full analysis',
    schedule: { kind: 'queue', pollIntervalMs: 5_000, wokenBy: 'a new filing' },
    runsOn: 'every-instance',
    concurrency: 'ANALYSIS_CONCURRENCY',
    retries: {
      kind: 'per-item-backoff',
      attemptsSetting: 'ANALYSIS_MAX_ATTEMPTS',
      baseSetting: 'ANALYSIS_RETRY_BASE_MS',
      maxBackoffMs: 60 * MINUTE_MS,
    },
    progress: false,
    enabledBy: 'ANALYSIS_SCHEDULER_AUTO_START (then the admin pause and resume)',
  },
  {
    name: 'push',
    summary: "Expands new filings' fan-outs and sends the push deliveries to FCM",
    schedule: { kind: 'queue', pollIntervalMs: 2_000, wokenBy: 'a new filing or an analysis done' },
    runsOn: 'every-instance',
    concurrency: 'PUSH_CONCURRENCY',
    retries: {
      kind: 'per-item-backoff',
      attemptsSetting: 'PUSH_MAX_ATTEMPTS',
      baseSetting: 'PUSH_RETRY_BASE_MS',
      maxBackoffMs: 15 * MINUTE_MS,
    },
    progress: false,
  },
] as const satisfies readonly JobDeclaration[];

export type JobName = (typeof JOB_CATALOG)[number]['name'];
type Declared<Kind extends JobSchedule['kind']> = Extract<(typeof JOB_CATALOG)[number], { schedule: { kind: Kind } }>;
/** Jobs that run at their cron's times on one instance. */
export type CronJobName = Declared<'cron'>['name'];
/** Jobs that run again after each run on one instance. */
export type LoopJobName = Declared<'loop'>['name'];
/** Jobs whose runs are checkpointed in job_runs. */
export type RunJobName = Extract<(typeof JOB_CATALOG)[number], { progress: true }>['name'];
export type QueueJobName = Declared<'queue'>['name'];

export function jobDeclaration<Name extends JobName>(name: Name): Extract<(typeof JOB_CATALOG)[number], { name: Name }> {
  return JOB_CATALOG.find((job) => job.name === name) as Extract<(typeof JOB_CATALOG)[number], { name: Name }>;
}

/** The longest backoff between two attempts of an item of a queue. */
export function maxBackoffMs(name: QueueJobName): number {
  return jobDeclaration(name).retries.maxBackoffMs;
}

/** A daily cron job's time of day in KST, `HH:MM` (the start-up summary says it). */
export function dailyKstTime(name: CronJobName): string {
  const [, minute, hour] = jobDeclaration(name).schedule.cron.split(' ');
  return `${hour.padStart(2, '0')}:${minute.padStart(2, '0')}`;
}
