import { Global, Module } from '@nestjs/common';
import { SingletonJobs } from './singleton-jobs';

/** What the instances of one deployment share through PostgreSQL: singleton-job leadership. */
@Global()
@Module({
  providers: [SingletonJobs],
  exports: [SingletonJobs],
})
export class FleetModule {}
