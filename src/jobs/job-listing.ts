import { Injectable } from '@nestjs/common';
import { CronTime } from 'cron';
import { Clock } from '../common/clock';
import { KST_TIME_ZONE } from '../common/korea-time';
import { FleetInstancesRepository } from '../fleet/fleet-instances.repository';
import { JOB_CATALOG, type JobDeclaration, type JobName, type JobRetries } from './job-catalog';
import { JobScheduler } from './job-scheduler';
import { JobStatesRepository, type JobState } from './job-states.repository';
import { describeRun, type JobRunStatusFields } from './runs/job-run-status';
import { JobRunsRepository } from './runs/job-runs.repository';

export type JobStateName = 'disabled' | 'no-holder' | 'running' | 'idle' | 'paused';

/** One job as the admin list shows it (snake_case, as every admin answer). */
export interface JobView {
  name: JobName;
  summary: string;
  schedule: {
    kind: JobDeclaration['schedule']['kind'];
    cron: string | null;
    time_zone: string | null;
    delay: string | null;
    poll_interval_ms: number | null;
    woken_by: string | null;
    on_demand: boolean;
  };
  runs_on: JobDeclaration['runsOn'];
  concurrency: number | string;
  retries: { kind: JobRetries['kind']; attempts_setting: string | null; base_setting: string | null; max_backoff_ms: number | null };
  reports_progress: boolean;
  enabled_by: string | null;
  /** Its time-based schedule (cron, loop, queue) runs: the on-demand runs of a job work either way. */
  scheduled: boolean;
  state: JobStateName;
  /** The instance that holds a one-instance job; null for a queue or when none does. */
  holder: string | null;
  /** The instances working a queue. */
  instances: string[];
  last_started_at: string | null;
  last_finished_at: string | null;
  last_succeeded_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  next_run_at: string | null;
  /** The latest run of a job that reports progress. */
  run: JobRunStatusFields | null;
}

const iso = (date: Date | null | undefined) => (date ? new Date(date).toISOString() : null);

/**
 * The list of every job of the catalog with what the fleet knows of it: which instance
 * holds it (the heartbeats in fleet_instances), its last and next run and last error
 * (job_states, or job_runs for runs with progress), and its state. The enabled switches
 * are this instance's configuration, which every instance of a deployment shares.
 */
@Injectable()
export class JobListing {
  constructor(
    private readonly scheduler: JobScheduler,
    private readonly states: JobStatesRepository,
    private readonly jobRuns: JobRunsRepository,
    private readonly fleet: FleetInstancesRepository,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<JobView[]> {
    const [states, instances, backfill, stockSync] = await Promise.all([
      this.states.all(),
      this.fleet.live(),
      this.jobRuns.latest('backfill'),
      this.jobRuns.latest('stock-sync'),
    ]);
    const runs = new Map<string, JobRunStatusFields>([
      ['backfill', describeRun(backfill)],
      ['stock-sync', describeRun(stockSync)],
    ]);
    return JOB_CATALOG.map((job) => {
      const declaration: JobDeclaration = job;
      const local = this.scheduler.localView(job.name);
      const enabled = local?.enabled ?? false;
      const scheduled = local?.scheduled ?? false;
      const state = states.get(job.name);
      const run = declaration.progress ? (runs.get(job.name) ?? null) : null;
      const holder =
        declaration.runsOn === 'one-instance'
          ? (instances.find((instance) => instance.singletonJobs.includes(job.name))?.id ?? null)
          : null;
      const working =
        declaration.runsOn === 'every-instance'
          ? instances.filter((instance) => job.name !== 'analysis' || instance.status === 'running').map((instance) => instance.id)
          : [];
      return {
        ...describeDeclaration(declaration, local?.concurrency),
        scheduled,
        state: stateOf(declaration, { enabled, holder, working, state, run }),
        holder,
        instances: working,
        ...lastRun(state, run),
        next_run_at: this.nextRunAt(declaration, scheduled, holder, state),
        run,
      };
    });
  }

  private nextRunAt(job: JobDeclaration, scheduled: boolean, holder: string | null, state: JobState | undefined): string | null {
    if (!scheduled) return null;
    if (job.schedule.kind === 'cron') {
      return new CronTime(job.schedule.cron, KST_TIME_ZONE).getNextDateFrom(this.clock.now(), KST_TIME_ZONE).toUTC().toISO();
    }
    // A loop's next run is what its holder scheduled after its last run.
    if (job.schedule.kind === 'loop' && holder !== null) return iso(state?.nextRunAt);
    return null;
  }
}

function describeDeclaration(
  job: JobDeclaration,
  concurrency: number | undefined,
): Pick<JobView, 'name' | 'summary' | 'schedule' | 'runs_on' | 'concurrency' | 'retries' | 'reports_progress' | 'enabled_by'> {
  const { schedule, retries } = job;
  return {
    name: job.name as JobName,
    summary: job.summary,
    schedule: {
      kind: schedule.kind,
      cron: schedule.kind === 'cron' ? schedule.cron : null,
      time_zone: schedule.kind === 'cron' ? KST_TIME_ZONE : null,
      delay: schedule.kind === 'loop' ? schedule.delay : null,
      poll_interval_ms: schedule.kind === 'queue' ? schedule.pollIntervalMs : null,
      woken_by: schedule.kind === 'queue' ? schedule.wokenBy : null,
      on_demand: schedule.kind === 'on-demand' || (schedule.kind === 'cron' && schedule.also === 'on-demand'),
    },
    runs_on: job.runsOn,
    concurrency: concurrency ?? job.concurrency,
    retries: {
      kind: retries.kind,
      attempts_setting: retries.kind === 'per-item-backoff' ? retries.attemptsSetting : null,
      base_setting: retries.kind === 'per-item-backoff' ? retries.baseSetting : null,
      max_backoff_ms: retries.kind === 'per-item-backoff' ? retries.maxBackoffMs : null,
    },
    reports_progress: job.progress,
    enabled_by: job.enabledBy ?? null,
  };
}

function stateOf(
  job: JobDeclaration,
  facts: { enabled: boolean; holder: string | null; working: string[]; state: JobState | undefined; run: JobRunStatusFields | null },
): JobStateName {
  if (!facts.enabled) return 'disabled';
  if (job.runsOn === 'every-instance') return facts.working.length > 0 ? 'running' : 'paused';
  if (facts.holder === null) return 'no-holder';
  if (facts.run) return facts.run.status === 'running' ? 'running' : 'idle';
  // A loop polls for as long as it is held.
  if (job.schedule.kind === 'loop') return 'running';
  return facts.state?.runningOn === facts.holder ? 'running' : 'idle';
}

/** The last run's times and error: from job_runs for a job with progress, from job_states otherwise. */
function lastRun(
  state: JobState | undefined,
  run: JobRunStatusFields | null,
): Pick<JobView, 'last_started_at' | 'last_finished_at' | 'last_succeeded_at' | 'last_error' | 'last_error_at'> {
  if (run) {
    return {
      last_started_at: run.started_at,
      last_finished_at: run.finished_at,
      last_succeeded_at: run.status === 'completed' ? run.finished_at : null,
      last_error: run.last_error,
      last_error_at: run.status === 'failed' ? run.finished_at : null,
    };
  }
  return {
    last_started_at: iso(state?.lastStartedAt),
    last_finished_at: iso(state?.lastFinishedAt),
    last_succeeded_at: iso(state?.lastSucceededAt),
    last_error: state?.lastError ?? null,
    last_error_at: iso(state?.lastErrorAt),
  };
}
