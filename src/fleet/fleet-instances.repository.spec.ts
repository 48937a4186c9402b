import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { FakeClock } from '../../test/support/fake-clock';
import { FleetInstancesRepository } from './fleet-instances.repository';
import type { FleetSignals } from './fleet-signals';
import { InstanceIdentity } from './instance-identity';
import type { SingletonJobs } from './singleton-jobs';

describe('FleetInstancesRepository.judgesOthersDead', () => {
  const TAKEOVER_MS = 5_000;
  let clock: FakeClock;
  let query: jest.Mock;
  let fleet: FleetInstancesRepository;
  /** One heartbeat, as the interval timer would run it. */
  const beat = () => (fleet as unknown as { beat(): Promise<void> }).beat();

  afterEach(() => jest.restoreAllMocks());

  beforeEach(() => {
    clock = new FakeClock();
    query = jest.fn().mockResolvedValue([]);
    fleet = new FleetInstancesRepository(
      { fleet: { leaderTakeoverMs: TAKEOVER_MS } },
      { query } as unknown as DataSource,
      new InstanceIdentity(),
      { held: () => [] } as unknown as SingletonJobs,
      { deliverFollowed: () => undefined } as unknown as FleetSignals,
      clock,
    );
  });

  it('judges only once its own heartbeats have gone on for LEADER_TAKEOVER_MS', async () => {
    expect(fleet.judgesOthersDead()).toBe(false);
    await beat();
    clock.advance(TAKEOVER_MS - 1);
    await beat();
    expect(fleet.judgesOthersDead()).toBe(false);
    clock.advance(1);
    expect(fleet.judgesOthersDead()).toBe(true);
  });

  it('stops judging when a heartbeat fails (a database outage makes every heartbeat old) and waits the window again after it', async () => {
    await beat();
    clock.advance(TAKEOVER_MS);
    expect(fleet.judgesOthersDead()).toBe(true);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    query.mockRejectedValueOnce(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await beat();
    expect(fleet.judgesOthersDead()).toBe(false);
    await beat();
    clock.advance(TAKEOVER_MS - 1);
    expect(fleet.judgesOthersDead()).toBe(false);
    clock.advance(1);
    expect(fleet.judgesOthersDead()).toBe(true);
  });
});
