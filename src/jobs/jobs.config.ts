import { DAY_MS, type EnvReader } from '../config/env-reader';

/** The switches of the scheduled jobs (disclosure monitor, analysis scheduler, stock sync), side by side for the operator. */
export interface JobsConfig {
  disclosureMonitorAutoStart: boolean;
  /** Between polls in KST business hours (weekdays 07:00–19:00). */
  disclosureMonitorIntervalMs: number;
  /** Between polls outside business hours. */
  disclosureMonitorIdleIntervalMs: number;
  analysisSchedulerAutoStart: boolean;
  stockSyncSchedulerEnabled: boolean;
  /** Fill an empty stock master once at boot. */
  stockSyncBootstrap: boolean;
  /** How often a running backfill or stock sync logs a progress line. */
  progressLogMs: number;
}

/** Every job is on by default in production only. */
export function jobsConfig(read: EnvReader, production: boolean): JobsConfig {
  const stockSyncSchedulerEnabled = read.boolean('STOCK_SYNC_SCHEDULER_ENABLED', production);
  return {
    disclosureMonitorAutoStart: read.boolean('DISCLOSURE_MONITOR_AUTO_START', production),
    disclosureMonitorIntervalMs: read.integer('DISCLOSURE_MONITOR_INTERVAL_MS', 5_000, { min: 1000, max: DAY_MS }),
    disclosureMonitorIdleIntervalMs: read.integer('DISCLOSURE_MONITOR_IDLE_INTERVAL_MS', 60_000, { min: 1000, max: DAY_MS }),
    analysisSchedulerAutoStart: read.boolean('ANALYSIS_SCHEDULER_AUTO_START', production),
    stockSyncSchedulerEnabled,
    // A first deployment starts with an empty master, which the daily sync needs filled.
    stockSyncBootstrap: read.boolean('STOCK_SYNC_BOOTSTRAP', stockSyncSchedulerEnabled),
    progressLogMs: read.integer('JOB_PROGRESS_LOG_MS', 10_000, { min: 100, max: DAY_MS }),
  };
}
