import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Metrics } from '../metrics/metrics';

/** What the fleet knows of a job's runs. */
export interface JobState {
  name: string;
  runningOn: string | null;
  lastStartedAt: Date | null;
  lastFinishedAt: Date | null;
  lastSucceededAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  nextRunAt: Date | null;
}

/** The longest error text kept: enough for a message, never a whole response body. */
const ERROR_TEXT_MAX = 500;

/**
 * Owner of table job_states: the only writer. One row per job, written by whichever
 * instance runs it: at the start and the end of each scheduled run, and at most every
 * few seconds for a queue (JobScheduler). Timestamps only move forward, so two
 * instances reporting one queue never take a state back.
 */
@Injectable()
export class JobStatesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    metrics: Metrics,
  ) {
    metrics.sources.jobLastSuccess = () => this.lastSuccesses();
  }

  async started(name: string, instanceId: string, at: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO job_states (name, running_on, last_started_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET running_on = $2, last_started_at = $3, updated_at = now()`,
      [name, instanceId, at],
    );
  }

  /** The end of a run: a success, or its error. `nextRunAt` is when a loop runs again. */
  async finished(
    name: string,
    instanceId: string,
    run: { startedAt: Date; finishedAt: Date; error?: string; nextRunAt?: Date | null },
  ): Promise<void> {
    const error = run.error === undefined ? null : run.error.slice(0, ERROR_TEXT_MAX);
    await this.dataSource.query(
      `INSERT INTO job_states AS s (name, last_started_at, last_finished_at, last_succeeded_at, last_error, last_error_at, next_run_at)
       VALUES ($1, $3::timestamptz, $4::timestamptz, CASE WHEN $5::text IS NULL THEN $4::timestamptz END, $5::text,
               CASE WHEN $5::text IS NOT NULL THEN $4::timestamptz END, $6::timestamptz)
       ON CONFLICT (name) DO UPDATE SET
         running_on = CASE WHEN s.running_on = $2::varchar THEN NULL ELSE s.running_on END,
         last_started_at = GREATEST(s.last_started_at, EXCLUDED.last_started_at),
         last_finished_at = GREATEST(s.last_finished_at, EXCLUDED.last_finished_at),
         last_succeeded_at = GREATEST(s.last_succeeded_at, EXCLUDED.last_succeeded_at),
         last_error = CASE WHEN $5::text IS NOT NULL THEN $5::text ELSE s.last_error END,
         last_error_at = GREATEST(s.last_error_at, EXCLUDED.last_error_at),
         next_run_at = EXCLUDED.next_run_at,
         updated_at = now()`,
      [name, instanceId, run.startedAt, run.finishedAt, error, run.nextRunAt ?? null],
    );
  }

  /** A queue's activity since its last report: its latest success and its latest error. */
  async queueReport(name: string, report: { succeededAt: Date | null; error: { message: string; at: Date } | null }): Promise<void> {
    const error = report.error ? report.error.message.slice(0, ERROR_TEXT_MAX) : null;
    await this.dataSource.query(
      `INSERT INTO job_states AS s (name, last_finished_at, last_succeeded_at, last_error, last_error_at)
       VALUES ($1, $2::timestamptz, $2::timestamptz, $3::text, $4::timestamptz)
       ON CONFLICT (name) DO UPDATE SET
         last_finished_at = GREATEST(s.last_finished_at, EXCLUDED.last_finished_at),
         last_succeeded_at = GREATEST(s.last_succeeded_at, EXCLUDED.last_succeeded_at),
         last_error = CASE WHEN $4::timestamptz >= s.last_error_at OR s.last_error_at IS NULL THEN COALESCE($3::text, s.last_error)
                           ELSE s.last_error END,
         last_error_at = GREATEST(s.last_error_at, EXCLUDED.last_error_at),
         updated_at = now()`,
      [name, report.succeededAt, error, report.error?.at ?? null],
    );
  }

  /** When each job last succeeded, in seconds since the epoch (for the metrics); a job that never did is left out. */
  async lastSuccesses(): Promise<Record<string, number>> {
    const rows = await this.dataSource.query<{ name: string; at: number }[]>(
      'SELECT name, extract(epoch FROM last_succeeded_at)::float8 AS at FROM job_states WHERE last_succeeded_at IS NOT NULL',
    );
    return Object.fromEntries(rows.map((row) => [row.name, row.at]));
  }

  async all(): Promise<Map<string, JobState>> {
    const rows: JobState[] = await this.dataSource.query(
      `SELECT name, running_on AS "runningOn", last_started_at AS "lastStartedAt", last_finished_at AS "lastFinishedAt",
              last_succeeded_at AS "lastSucceededAt", last_error AS "lastError", last_error_at AS "lastErrorAt",
              next_run_at AS "nextRunAt"
         FROM job_states`,
    );
    return new Map(rows.map((row) => [row.name, row]));
  }
}
