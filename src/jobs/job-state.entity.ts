import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last run of a background job, whichever instance ran it. Written only by JobStatesRepository. */
@Entity('job_states')
export class JobStateEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name: string;

  /** The instance running it now; NULL between runs. */
  @Column({ name: 'running_on', type: 'varchar', length: 64, nullable: true })
  runningOn: string | null;

  @Column({ name: 'last_started_at', type: 'timestamptz', nullable: true })
  lastStartedAt: Date | null;

  @Column({ name: 'last_finished_at', type: 'timestamptz', nullable: true })
  lastFinishedAt: Date | null;

  @Column({ name: 'last_succeeded_at', type: 'timestamptz', nullable: true })
  lastSucceededAt: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'last_error_at', type: 'timestamptz', nullable: true })
  lastErrorAt: Date | null;

  /** When a loop job runs next, as its holder scheduled it. */
  @Column({ name: 'next_run_at', type: 'timestamptz', nullable: true })
  nextRunAt: Date | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
