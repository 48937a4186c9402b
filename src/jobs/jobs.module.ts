import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobStateEntity } from './job-state.entity';
import { JobListing } from './job-listing';
import { JobScheduler } from './job-scheduler';
import { JobStates } from './job-states';
import { JobsAdminController } from './jobs-admin.controller';
import { JobRunEntity } from './runs/job-run.entity';
import { JobRuns } from './runs/job-runs';

/**
 * The background jobs: the catalog that declares each once (job-catalog.ts), the scheduler
 * that runs them, their recorded state, the checkpointed runs and the admin list.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([JobStateEntity, JobRunEntity])],
  providers: [JobScheduler, JobStates, JobRuns, JobListing],
  controllers: [JobsAdminController],
  exports: [JobScheduler, JobRuns],
})
export class JobsModule {}
