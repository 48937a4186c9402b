import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobStateEntity } from './job-state.entity';
import { JobListing } from './job-listing';
import { JobScheduler } from './job-scheduler';
import { JobStatesRepository } from './job-states.repository';
import { JobsAdminController } from './jobs-admin.controller';
import { JobRunEntity } from './runs/job-run.entity';
import { JobRunsRepository } from './runs/job-runs.repository';

/**
 * The background jobs: the catalog that declares each once (job-catalog.ts), the scheduler
 * that runs them, their recorded state, the checkpointed runs and the admin list.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([JobStateEntity, JobRunEntity])],
  providers: [JobScheduler, JobStatesRepository, JobRunsRepository, JobListing],
  controllers: [JobsAdminController],
  exports: [JobScheduler, JobRunsRepository],
})
export class JobsModule {}
