import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const PREMIUM_TIERS = ['none', 'pro', 'max'] as const;
export type PremiumTier = (typeof PREMIUM_TIERS)[number];

/** A person using the service. Created at the first sign-in. Written only by UsersRepository. */
@Entity('users')
@Check('ck_users_premium_tier', `premium_tier IN ('none', 'pro', 'max')`)
@Check('ck_users_downgraded_from', `downgraded_from IN ('pro', 'max')`)
// Partial: the lapse sweep reads only users with a tier (migration StorePurchaseState1764490000000).
@Index('ix_users_premium_until', ['premiumUntil'], { where: "premium_tier <> 'none'" })
// Partial: only users with a pending downgrade cleanup are indexed (migration Subscriptions1764200000000).
@Index('ix_users_downgraded_at', ['downgradedAt'], { where: 'downgraded_at IS NOT NULL' })
export class UserEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  /** Only the subscription tier transitions change the four premium columns (through UsersRepository). */
  @Column({ name: 'premium_tier', type: 'varchar', length: 8, default: 'none' })
  premiumTier: PremiumTier;

  @Column({ name: 'premium_until', type: 'timestamptz', nullable: true })
  premiumUntil: Date | null;

  @Column({ name: 'premium_platform', type: 'varchar', length: 16, nullable: true })
  premiumPlatform: string | null;

  @Column({ name: 'premium_tx_ref', type: 'varchar', length: 255, nullable: true })
  premiumTxRef: string | null;

  /** When the active tier last dropped; NULL when no downgrade cleanup is pending. */
  @Column({ name: 'downgraded_at', type: 'timestamptz', nullable: true })
  downgradedAt: Date | null;

  /** The highest tier held since `downgraded_at`: only a rise back to it cancels the pending cleanup. */
  @Column({ name: 'downgraded_from', type: 'varchar', length: 8, nullable: true })
  downgradedFrom: Exclude<PremiumTier, 'none'> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
