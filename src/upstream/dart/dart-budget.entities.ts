import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** One disclosure-system request start of any instance, kept while it is inside the rolling minute. Written only by PostgresDartBudget. */
@Entity('dart_request_starts')
@Index('ix_dart_request_starts_started_at', ['startedAt'])
export class DartRequestStartEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;
}

/** The disclosure-system calls of one KST day, fleet-wide. Written only by PostgresDartBudget. */
@Entity('dart_budget_days')
export class DartBudgetDayEntity {
  @PrimaryColumn({ type: 'date' })
  day: string;

  @Column({ type: 'integer', default: 0 })
  used: number;

  /** The upstream answered 020 this day: no instance calls again until the next KST day. */
  @Column({ type: 'boolean', default: false })
  spent: boolean;
}
