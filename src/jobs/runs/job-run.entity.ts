import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const JOB_RUN_KINDS = ['backfill', 'stock-sync'] as const;
export type JobRunKind = (typeof JOB_RUN_KINDS)[number];
export type JobRunStatus = 'running' | 'completed' | 'failed';

/**
 * One backfill or stock sync, from its start request to its end, with the progress
 * and the checkpoint it resumes from. Written only by JobRunsRepository.
 */
@Entity('job_runs')
@Check('ck_job_runs_kind', `kind IN ('backfill', 'stock-sync')`)
@Check('ck_job_runs_status', `status IN ('running', 'completed', 'failed')`)
// One running run of a kind in the whole fleet: a second start fails on this index.
@Index('ux_job_runs_one_running', ['kind'], { unique: true, where: `status = 'running'` })
@Index('ix_job_runs_kind', ['kind', 'id'])
export class JobRunEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 16 })
  kind: JobRunKind;

  @Column({ type: 'varchar', length: 12, default: 'running' })
  status: JobRunStatus;

  /** What was asked: the backfill's fromDate/toDate/delayMs, the stock sync's mode. */
  @Column({ type: 'jsonb' })
  params: Record<string, unknown>;

  @Column({ type: 'text', nullable: true })
  phase: string | null;

  /** Items to process; null until known (the backfill counts first). */
  @Column({ type: 'integer', nullable: true })
  total: number | null;

  @Column({ type: 'integer', default: 0 })
  processed: number;

  @Column({ type: 'integer', default: 0 })
  failed: number;

  /** Outcome counters of the kind (backfill: saved; stock sync: added, updated, removed). */
  @Column({ type: 'jsonb' })
  counts: Record<string, number>;

  /** Where a new executor resumes; written in the same statement as the counters. */
  @Column({ type: 'jsonb', nullable: true })
  checkpoint: Record<string, unknown> | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', default: () => 'now()' })
  startedAt: Date;

  /** When the current executor took the run over (after a restart or a leader change). */
  @Column({ name: 'resumed_at', type: 'timestamptz', nullable: true })
  resumedAt: Date | null;

  /** `processed` at `resumed_at`: the rate counts only what this executor did. */
  @Column({ name: 'resumed_processed', type: 'integer', default: 0 })
  resumedProcessed: number;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  /** Written with every progress update: a running run whose executor died stops moving. */
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  /** The instance executing it; null while nobody does (just started, or handed over). */
  @Column({ name: 'run_by', type: 'varchar', length: 64, nullable: true })
  runBy: string | null;
}
