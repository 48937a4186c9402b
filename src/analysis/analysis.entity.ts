import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const ANALYSIS_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'UNAVAILABLE'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

/**
 * The analysis of one filing, created PENDING with the filing. The table is the
 * analysis scheduler's work queue.
 */
@Entity('analyses')
export class AnalysisEntity {
  @PrimaryColumn({ name: 'rcept_no', type: 'char', length: 14 })
  rceptNo: string;

  @Column({ type: 'varchar', length: 12 })
  status: AnalysisStatus;

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
}
