import { ApiProperty } from '@nestjs/swagger';
import type { JobRunStatusFields } from './job-run-status';

/** The fields every job-run status shows (backfill, stock sync); read from the database by any instance. */
export class JobRunStatusView implements JobRunStatusFields {
  @ApiProperty({ enum: ['idle', 'running', 'completed', 'failed'], description: 'idle: no run yet' })
  status: 'idle' | 'running' | 'completed' | 'failed';
  @ApiProperty({ nullable: true, type: String, description: 'What the run does now (per kind); null when idle' })
  phase: string | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Items to process; null until known, 0 when idle' })
  total: number | null;
  @ApiProperty()
  processed: number;
  @ApiProperty()
  failed: number;
  @ApiProperty({ nullable: true, type: String })
  started_at: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'When another executor took the run over (restart, leader change)' })
  resumed_at: string | null;
  @ApiProperty({ nullable: true, type: String })
  finished_at: string | null;
  @ApiProperty({ nullable: true, type: String })
  last_error: string | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Items per second since started_at (or resumed_at); null when idle or under a second in',
  })
  rate_per_second: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Seconds left at that rate; 0 when completed; null while it cannot be told' })
  eta_seconds: number | null;
}
