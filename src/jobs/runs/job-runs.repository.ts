import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { JobRunKind, JobRunStatus } from './job-run.entity';

/** What an executor writes as it goes: counters and checkpoint in one statement, so they always agree. */
export interface JobRunProgress {
  phase: string;
  total: number | null;
  processed: number;
  failed: number;
  counts: Record<string, number>;
  checkpoint: Record<string, unknown> | null;
  lastError: string | null;
}

/** A run as the executors and the status endpoints read it: its progress (no phase before it is first executed), and its life. */
export interface JobRun extends Omit<JobRunProgress, 'phase'> {
  id: number;
  kind: JobRunKind;
  status: JobRunStatus;
  params: Record<string, unknown>;
  phase: string | null;
  startedAt: Date;
  resumedAt: Date | null;
  resumedProcessed: number;
  finishedAt: Date | null;
  runBy: string | null;
  /** Seconds from `resumed_at` (or `started_at`) to `finished_at` (or now), by the database clock. */
  elapsedSeconds: number;
}

const COLUMNS = `id, kind, status, params, phase, total, processed, failed, counts, checkpoint,
  last_error AS "lastError", started_at AS "startedAt", resumed_at AS "resumedAt",
  resumed_processed AS "resumedProcessed", finished_at AS "finishedAt", run_by AS "runBy",
  extract(epoch FROM coalesce(finished_at, now()) - coalesce(resumed_at, started_at))::float8 AS "elapsedSeconds"`;

/**
 * Owner of table job_runs: the only writer. The backfill and the stock sync, one
 * running run of a kind in the whole fleet (ux_job_runs_one_running). Times are the
 * database's, so every instance reads the same clock. Every write of an executor is
 * fenced by `run_by`: an instance that lost a run (it was taken over) changes nothing.
 */
@Injectable()
export class JobRunsRepository {
  /** This instance, as `run_by` names it. */
  readonly instanceId = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(3).toString('hex')}`;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Records a new running run; null when one of the kind is already running (anywhere). */
  async begin(kind: JobRunKind, params: Record<string, unknown>, counts: Record<string, number>): Promise<JobRun | null> {
    const rows: JobRun[] = await this.dataSource.query(
      `INSERT INTO job_runs (kind, params, counts) VALUES ($1, $2, $3)
       ON CONFLICT (kind) WHERE status = 'running' DO NOTHING
       RETURNING ${COLUMNS}`,
      [kind, params, counts],
    );
    return rows[0] ?? null;
  }

  /** The newest run of the kind (running or not); null before the first. */
  async latest(kind: JobRunKind): Promise<JobRun | null> {
    const rows: JobRun[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM job_runs WHERE kind = $1 ORDER BY id DESC LIMIT 1`, [kind]);
    return rows[0] ?? null;
  }

  /**
   * Takes over the running run of the kind when nobody executes it: just started,
   * handed over, or its executor wrote nothing for `staleMs` (it died). One statement
   * on the partial index; two instances cannot both win it. A run executed before
   * gets `resumed_at`.
   */
  async claim(kind: JobRunKind, staleMs: number): Promise<JobRun | null> {
    const rows: JobRun[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE job_runs SET run_by = $2, updated_at = now(),
           resumed_at = CASE WHEN phase IS NULL THEN NULL ELSE now() END,
           resumed_processed = processed
         WHERE kind = $1 AND status = 'running'
           AND (run_by IS NULL OR run_by = $2 OR updated_at < now() - $3 * interval '1 millisecond')
         RETURNING *
       )
       SELECT ${COLUMNS} FROM claimed`,
      [kind, this.instanceId, staleMs],
    );
    return rows[0] ?? null;
  }

  /**
   * Adds `by` to the counter `name` of a run this instance executes, in the caller's transaction:
   * the count commits or rolls back with the work it counts, so no crash, outage or takeover between
   * the two can lose it, and work found done on resume is not counted again. False when the run is no
   * longer this instance's: the caller rolls back. A counter kept this way is left out of the progress
   * the executor writes (`counts` there is merged into the stored one, never replacing it).
   */
  async addToCount(manager: EntityManager, id: number, name: string, by: number): Promise<boolean> {
    const [, affected] = (await manager.query(
      `UPDATE job_runs SET counts = counts || jsonb_build_object($3::text, coalesce((counts ->> $3)::bigint, 0) + $4)
       WHERE id = $1 AND run_by = $2 AND status = 'running'`,
      [id, this.instanceId, name, by],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Progress of a run this instance executes; false when it no longer does (taken over, or ended). */
  async saveProgress(id: number, progress: JobRunProgress): Promise<boolean> {
    return this.write(id, progress, '');
  }

  /** Stops executing the run, leaving it running for the next executor (resign, shutdown). */
  async release(id: number, progress: JobRunProgress): Promise<boolean> {
    return this.write(id, progress, ', run_by = NULL');
  }

  /** Ends the run. */
  async finish(id: number, status: Exclude<JobRunStatus, 'running'>, progress: JobRunProgress): Promise<boolean> {
    return this.write(id, progress, `, status = '${status === 'completed' ? 'completed' : 'failed'}', finished_at = now()`);
  }

  private async write(id: number, progress: JobRunProgress, extra: string): Promise<boolean> {
    const [, affected] = (await this.dataSource.query(
      `UPDATE job_runs SET phase = $3, total = $4, processed = $5, failed = $6, counts = counts || $7::jsonb, checkpoint = $8,
         last_error = $9, updated_at = now()${extra}
       WHERE id = $1 AND run_by = $2 AND status = 'running'`,
      [
        id,
        this.instanceId,
        progress.phase,
        progress.total,
        progress.processed,
        progress.failed,
        progress.counts,
        progress.checkpoint,
        progress.lastError?.slice(0, 2000) ?? null,
      ],
    )) as [unknown, number];
    return affected > 0;
  }
}
