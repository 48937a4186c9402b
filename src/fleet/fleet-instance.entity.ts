import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** One running instance of the service, as its last heartbeat described it. Written only by FleetInstancesRepository. */
@Entity('fleet_instances')
@Check('ck_fleet_instances_analysis_status', `analysis_status IN ('running', 'paused')`)
export class FleetInstanceEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 64 })
  host: string;

  @Column({ type: 'integer' })
  pid: number;

  @Column({ name: 'started_at', type: 'timestamptz', default: () => 'now()' })
  startedAt: Date;

  @Column({ name: 'heartbeat_at', type: 'timestamptz', default: () => 'now()' })
  heartbeatAt: Date;

  @Column({ name: 'analysis_status', type: 'varchar', length: 8, default: 'paused' })
  analysisStatus: 'running' | 'paused';

  @Column({ name: 'analysis_active', type: 'integer', default: 0 })
  analysisActive: number;

  @Column({ name: 'analysis_concurrency', type: 'integer', default: 0 })
  analysisConcurrency: number;

  @Column({ name: 'singleton_jobs', type: 'text', array: true, default: () => "'{}'" })
  singletonJobs: string[];
}
