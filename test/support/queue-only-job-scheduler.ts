import type { Clock } from '../../src/common/clock';
import { InstanceIdentity } from '../../src/fleet/instance-identity';
import { JobScheduler } from '../../src/jobs/job-scheduler';
import { FakeClock } from './fake-clock';

/** Stands for a collaborator a unit test must never reach: any use of it throws, naming it. */
function unreachable<T>(name: string): T {
  return new Proxy(
    {},
    {
      get: (_target, key) => {
        throw new Error(`${name}.${String(key)} is not available in this unit test`);
      },
    },
  ) as T;
}

/**
 * A JobScheduler for unit tests of a queue's owner (PushDispatcher, say): `queue()` builds
 * the real WorkerPool, leased as a new instance; leadership, job_states and job_runs are out of reach.
 */
export function queueOnlyJobScheduler(clock: Clock = new FakeClock()): JobScheduler {
  return new JobScheduler(
    unreachable('config'),
    unreachable('SingletonJobs'),
    // The pool's leases are this instance's.
    new InstanceIdentity(),
    unreachable('JobStatesRepository'),
    unreachable('JobRunsRepository'),
    unreachable('SchedulerRegistry'),
    clock,
  );
}
