import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FleetInstanceEntity } from './fleet-instance.entity';
import { FleetInstancesRepository } from './fleet-instances.repository';
import { FleetSignals } from './fleet-signals';
import { InstanceIdentity } from './instance-identity';
import { SingletonJobs } from './singleton-jobs';

/**
 * What the instances of one deployment share through PostgreSQL: singleton-job
 * leadership, the registry of live instances, and signals that shared state changed.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([FleetInstanceEntity])],
  providers: [InstanceIdentity, SingletonJobs, FleetSignals, FleetInstancesRepository],
  exports: [InstanceIdentity, SingletonJobs, FleetSignals, FleetInstancesRepository],
})
export class FleetModule {}
