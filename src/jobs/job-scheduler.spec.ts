import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { InstanceIdentity } from '../fleet/instance-identity';
import type { SingletonJob, SingletonJobs } from '../fleet/singleton-jobs';
import { FakeClock } from '../../test/support/fake-clock';
import { eventually } from '../../test/support/eventually';
import { JobScheduler } from './job-scheduler';
import type { JobStatesRepository } from './job-states.repository';
import type { JobRunsRepository } from './runs/job-runs.repository';

describe('JobScheduler, a loop job', () => {
  let registered: SingletonJob | undefined;
  let scheduler: JobScheduler;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const leadership = { register: (job: SingletonJob) => (registered = job) } as unknown as SingletonJobs;
    const states = { started: () => Promise.resolve(), finished: () => Promise.resolve() } as unknown as JobStatesRepository;
    scheduler = new JobScheduler(
      { fleet: { leaderTakeoverMs: 30_000 }, jobs: { progressLogMs: 10_000 } } as never,
      leadership,
      { id: 'instance-1' } as InstanceIdentity,
      states,
      {} as JobRunsRepository,
      new SchedulerRegistry(),
      new FakeClock(),
    );
  });
  afterEach(async () => {
    await registered?.resign();
    jest.restoreAllMocks();
  });

  it('runs one loop when the lead is lost and won back while a run is still going', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    scheduler.schedule('disclosure-monitor', {
      enabled: true,
      run: async () => {
        started += 1;
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await gate;
        inFlight -= 1;
      },
      // The first run's end schedules the next at once; later ones wait long.
      nextDelayMs: () => (started === 1 ? 0 : 60_000),
    });

    await registered!.lead();
    await eventually(() => started === 1);
    const resigned = registered!.resign();
    await registered!.lead();
    release();
    await resigned;
    // The run of the first lead ended: exactly one loop goes on (the second lead's).
    await eventually(() => started >= 2);
    // Let every timer already due fire (a second loop would have started its run at once).
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect({ started, mostInFlight }).toEqual({ started: 2, mostInFlight: 1 });
  });
});
