import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** The analysis scheduler's pause state for the whole fleet (one row; none until an operator sets it). Written only by SchedulerSettingsRepository. */
@Entity('analysis_scheduler_settings')
@Check('ck_analysis_scheduler_settings_one_row', 'id')
export class AnalysisSchedulerSettingEntity {
  @PrimaryColumn({ type: 'boolean', default: true })
  id: boolean;

  @Column({ type: 'boolean' })
  paused: boolean;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
