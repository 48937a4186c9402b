import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { LeasedWorkColumns } from '../database/leased-work-columns';
import { DisclosureEntity } from '../disclosures/disclosure.entity';

export const ANALYSIS_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'UNAVAILABLE'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

/**
 * The analysis of one filing, created PENDING with the filing. The table is the
 * analysis scheduler's work queue. Written only by AnalysesRepository.
 */
@Entity('analyses')
@Check('ck_analyses_status', `status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'UNAVAILABLE')`)
@Check('ck_analyses_completed', `status <> 'COMPLETED' OR (one_liner IS NOT NULL AND result IS NOT NULL AND doc_length IS NOT NULL)`)
// One partial index per kind of claim, so each claim is an ordered index scan, never a sort.
@Index('ix_analyses_new', ['createdAt'], { where: `status = 'PENDING' AND available_at IS NULL` })
// New filings someone's push waits for, claimed before every other (migration UrgentAnalyses1764450000000).
@Index('ix_analyses_urgent', ['createdAt'], { where: `status = 'PENDING' AND available_at IS NULL AND priority > 0` })
@Index('ix_analyses_retry', ['work.availableAt'], { where: `status = 'PENDING' AND available_at IS NOT NULL` })
@Index('ix_analyses_leased', ['work.leaseExpiresAt'], { where: `status = 'PROCESSING'` })
// The "completed with a one-liner" probes of the public reads (migration SummarisedAnalysesIndex1764300000000).
@Index('ix_analyses_summarised', ['rceptNo'], { where: `status = 'COMPLETED' AND one_liner <> ''` })
// The fleet's status counts analyses by outcome (migration Fleet1764400000000).
@Index('ix_analyses_status', ['status'])
// What an outage (the model's or the disclosure system's) postponed or left UNAVAILABLE, re-queued when it answers again (migration AnalysisOutages1764525000000).
@Index('ix_analyses_outage', ['status'], { where: 'outage_failures > 0' })
export class AnalysisEntity {
  @PrimaryColumn({ name: 'rcept_no', type: 'char', length: 14 })
  rceptNo: string;

  // Many-to-one in TypeORM's terms only: the primary key already makes it one analysis per filing.
  @ManyToOne(() => DisclosureEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'rcept_no', foreignKeyConstraintName: 'analyses_rcept_no_fkey' })
  disclosure?: DisclosureEntity;

  @Column({ type: 'varchar', length: 12, default: 'PENDING' })
  status: AnalysisStatus;

  /** 1: a watcher's push waits for this one-liner, so it is claimed first; 0: everything else. */
  @Column({ type: 'smallint', default: 0 })
  priority: number;

  @Column({ name: 'one_liner', type: 'varchar', length: 100, nullable: true })
  oneLiner: string | null;

  @Column({ type: 'jsonb', nullable: true })
  result: Record<string, unknown> | null;

  @Column({ name: 'doc_length', type: 'integer', nullable: true })
  docLength: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  /** A PROCESSING analysis whose lease expired is taken over by another worker. */
  @Column(() => LeasedWorkColumns, { prefix: false })
  work: LeasedWorkColumns;

  /** Model outages in a row that postponed this analysis without spending an attempt; 0 once the model answers for it. */
  @Column({ name: 'outage_failures', type: 'integer', default: 0 })
  outageFailures: number;

  @Column({ name: 'last_error', type: 'varchar', length: 1000, nullable: true })
  lastError: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  provider: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  model: string | null;

  @Column({ name: 'prompt_tokens', type: 'integer', nullable: true })
  promptTokens: number | null;

  @Column({ name: 'completion_tokens', type: 'integer', nullable: true })
  completionTokens: number | null;

  /** The document was cut to fit the model. */
  @Column({ type: 'boolean', nullable: true })
  truncated: boolean | null;
}
