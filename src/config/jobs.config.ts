import { DAY_MS, type EnvReader } from './env-reader';

/** The switches of the scheduled jobs (disclosure monitor, analysis scheduler, stock sync), side by side for the operator. */
export interface JobsConfig {
  disclosureMonitorAutoStart: boolean;
  disclosureMonitorIntervalMs: number;
  analysisSchedulerAutoStart: boolean;
  stockSyncSchedulerEnabled: boolean;
}

/**
 * `autoStartByDefault`: whether the monitor and the scheduler start unless told otherwise
 * (production, and local runs against the sandbox, where they make it come alive).
 */
export function jobsConfig(read: EnvReader, autoStartByDefault: boolean, production: boolean): JobsConfig {
  return {
    disclosureMonitorAutoStart: read.boolean('DISCLOSURE_MONITOR_AUTO_START', autoStartByDefault),
    disclosureMonitorIntervalMs: read.integer('DISCLOSURE_MONITOR_INTERVAL_MS', 60_000, { min: 1000, max: DAY_MS }),
    analysisSchedulerAutoStart: read.boolean('ANALYSIS_SCHEDULER_AUTO_START', autoStartByDefault),
    stockSyncSchedulerEnabled: read.boolean('STOCK_SYNC_SCHEDULER_ENABLED', production),
  };
}
