import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The FCM send budget of the fleet, one row (migration FcmSendBudget1764536000000: an UNLOGGED
 * table and the function fcm_send_budget_take). Written only by FcmSendBudgetRepository, in
 * SQL; the entity describes the schema.
 */
@Entity('fcm_send_budget')
export class FcmSendBudgetEntity {
  /** Always 1. */
  @PrimaryColumn({ type: 'smallint' })
  id: number;

  /** The moment the messages granted so far have used the rate up to. */
  @Column({ name: 'booked_until', type: 'timestamptz' })
  bookedUntil: Date;

  /** FCM answered QUOTA_EXCEEDED: no instance sends before then. */
  @Column({ name: 'paused_until', type: 'timestamptz', nullable: true })
  pausedUntil: Date | null;
}
