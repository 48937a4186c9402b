import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../admin/admin-key.guard';
import { JOB_CATALOG } from './job-catalog';
import { JobListing, type JobStateName, type JobView } from './job-listing';
import { JobRunStatusView } from './runs/job-run-status.view';

class JobScheduleView {
  @ApiProperty({ enum: ['cron', 'loop', 'on-demand', 'queue'] })
  kind: JobView['schedule']['kind'];
  @ApiProperty({ nullable: true, type: String, description: 'Six fields, seconds first, in time_zone' })
  cron: string | null;
  @ApiProperty({ nullable: true, type: String })
  time_zone: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'A loop: what sets the delay between runs' })
  delay: string | null;
  @ApiProperty({ nullable: true, type: Number, description: 'A queue: how often an idle instance looks for work' })
  poll_interval_ms: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'A queue: what wakes it at once' })
  woken_by: string | null;
  @ApiProperty({ description: 'An operator can also start a run (admin API)' })
  on_demand: boolean;
}

class JobRetriesView {
  @ApiProperty({ enum: ['next-run', 'resume-from-checkpoint', 'per-item-backoff'] })
  kind: JobView['retries']['kind'];
  @ApiProperty({ nullable: true, type: String })
  attempts_setting: string | null;
  @ApiProperty({ nullable: true, type: String })
  base_setting: string | null;
  @ApiProperty({ nullable: true, type: Number })
  max_backoff_ms: number | null;
}

class JobViewResponse implements JobView {
  @ApiProperty({ enum: JOB_CATALOG.map((job) => job.name) })
  name: JobView['name'];
  @ApiProperty()
  summary: string;
  @ApiProperty({ type: JobScheduleView })
  schedule: JobScheduleView;
  @ApiProperty({ enum: ['one-instance', 'every-instance'] })
  runs_on: JobView['runs_on'];
  @ApiProperty({ oneOf: [{ type: 'integer' }, { type: 'string' }], description: 'Jobs at once on each instance (a queue: its setting)' })
  concurrency: number | string;
  @ApiProperty({ type: JobRetriesView })
  retries: JobRetriesView;
  @ApiProperty({ description: 'Its runs report progress (run)' })
  reports_progress: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'The setting that switches it on, when it can be off' })
  enabled_by: string | null;
  @ApiProperty({ description: 'Its cron, loop or queue runs (on-demand runs work either way)' })
  scheduled: boolean;
  @ApiProperty({
    enum: ['disabled', 'no-holder', 'running', 'idle', 'paused'],
    description: 'no-holder: enabled, but no live instance holds it (they are starting, or the database is away)',
  })
  state: JobStateName;
  @ApiProperty({ nullable: true, type: String, description: 'The instance that runs a one-instance job' })
  holder: string | null;
  @ApiProperty({ type: [String], description: 'The instances working a queue' })
  instances: string[];
  @ApiProperty({ nullable: true, type: String })
  last_started_at: string | null;
  @ApiProperty({ nullable: true, type: String })
  last_finished_at: string | null;
  @ApiProperty({ nullable: true, type: String })
  last_succeeded_at: string | null;
  @ApiProperty({ nullable: true, type: String })
  last_error: string | null;
  @ApiProperty({ nullable: true, type: String })
  last_error_at: string | null;
  @ApiProperty({ nullable: true, type: String })
  next_run_at: string | null;
  @ApiProperty({ nullable: true, type: JobRunStatusView, description: 'The latest run of a job that reports progress' })
  run: JobRunStatusView | null;
}

class JobsResponse {
  @ApiProperty({ type: [JobViewResponse] })
  jobs: JobViewResponse[];
}

const EXAMPLE: JobsResponse = {
  jobs: [
    {
      name: 'retention',
      summary: 'Deletes push deliveries, store notifications and ad-reward records past their retention',
      schedule: {
        kind: 'cron',
        cron: '0 45 4 * * *',
        time_zone: 'Asia/Seoul',
        delay: null,
        poll_interval_ms: null,
        woken_by: null,
        on_demand: false,
      },
      runs_on: 'one-instance',
      concurrency: 1,
      retries: { kind: 'next-run', attempts_setting: null, base_setting: null, max_backoff_ms: null },
      reports_progress: false,
      enabled_by: null,
      scheduled: true,
      state: 'idle',
      holder: 'api-7f9c:41:1a2b3c',
      instances: [],
      last_started_at: '2026-11-25T19:45:00.004Z',
      last_finished_at: '2026-11-25T19:45:01.310Z',
      last_succeeded_at: '2026-11-25T19:45:01.310Z',
      last_error: null,
      last_error_at: null,
      next_run_at: '2026-11-26T19:45:00.000Z',
      run: null,
    },
  ],
};

@ApiTags('admin')
@AdminOnly()
@Controller('api/v1/admin/jobs')
export class JobsAdminController {
  constructor(private readonly listing: JobListing) {}

  @Get()
  @ApiOperation({
    summary: 'Every background job: schedule, where it runs, its holder, last and next run, state, last error',
    description: 'The declarations are in src/jobs/job-catalog.ts; docs/jobs.md explains each field.',
  })
  @ApiOkResponse({ type: JobsResponse, example: EXAMPLE })
  async list(): Promise<JobsResponse> {
    return { jobs: await this.listing.list() };
  }
}
