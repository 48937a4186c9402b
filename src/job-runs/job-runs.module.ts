import { Module } from '@nestjs/common';
import { JobRuns } from './job-runs';

/** The job_runs table: progress and checkpoints of the backfill and the stock sync. */
@Module({
  providers: [JobRuns],
  exports: [JobRuns],
})
export class JobRunsModule {}
