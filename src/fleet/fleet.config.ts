import type { EnvReader } from '../config/env-reader';

/** How the instances of one deployment share their singleton jobs. */
export interface FleetConfig {
  /** A dead leader's singleton jobs move to another instance within this long. */
  leaderTakeoverMs: number;
}

export function fleetConfig(read: EnvReader): FleetConfig {
  return {
    leaderTakeoverMs: read.integer('LEADER_TAKEOVER_MS', 30_000, { min: 1_000, max: 600_000 }),
  };
}
