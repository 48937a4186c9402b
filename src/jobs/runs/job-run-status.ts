import type { JobRun } from './job-runs.repository';

/** The fields every run status shows, in the admin API's snake_case. */
export interface JobRunStatusFields {
  status: 'idle' | 'running' | 'completed' | 'failed';
  /** What the run is doing now (kind-specific); null when idle. */
  phase: string | null;
  /** Items to process; null while still unknown (0 when idle). */
  total: number | null;
  processed: number;
  failed: number;
  started_at: string | null;
  /** When the current executor took the run over (restart, leader change); null if it never changed hands. */
  resumed_at: string | null;
  finished_at: string | null;
  last_error: string | null;
  /** Items per second since `resumed_at` (or `started_at`); null when idle. */
  rate_per_second: number | null;
  /** Seconds left at that rate; 0 when completed, null while it cannot be told. */
  eta_seconds: number | null;
}

export const IDLE_RUN: JobRunStatusFields = {
  status: 'idle',
  phase: null,
  total: 0,
  processed: 0,
  failed: 0,
  started_at: null,
  resumed_at: null,
  finished_at: null,
  last_error: null,
  rate_per_second: null,
  eta_seconds: null,
};

/** The status fields of a run (idle when there is none), with its rate and time left derived. */
export function describeRun(run: JobRun | null): JobRunStatusFields {
  if (!run) return { ...IDLE_RUN };
  const done = run.processed - run.resumedProcessed;
  // Under a second into a running run says nothing about its pace yet.
  const measurable = run.status === 'running' ? run.elapsedSeconds >= 1 : run.elapsedSeconds > 0;
  const rate = measurable ? Math.round((done / run.elapsedSeconds) * 100) / 100 : null;
  let eta: number | null = null;
  if (run.status === 'completed') eta = 0;
  else if (run.status === 'running' && run.total !== null && rate !== null && rate > 0) {
    eta = Math.ceil(Math.max(0, run.total - run.processed) / rate);
  }
  return {
    status: run.status,
    phase: run.phase,
    total: run.total,
    processed: run.processed,
    failed: run.failed,
    started_at: run.startedAt.toISOString(),
    resumed_at: run.resumedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
    last_error: run.lastError,
    rate_per_second: rate,
    eta_seconds: eta,
  };
}
