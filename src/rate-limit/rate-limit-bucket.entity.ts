import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One token bucket of one rule for one client (migration RateLimitBuckets1764430000000:
 * an UNLOGGED table). Written only by PostgresBucketStore, in SQL; the entity
 * describes the schema.
 */
@Entity('rate_limit_buckets')
export class RateLimitBucketEntity {
  /** `BucketRule.name`. */
  @PrimaryColumn({ type: 'text' })
  rule: string;

  /** `user:<id>` or `ip:<address>`. */
  @PrimaryColumn({ type: 'text' })
  key: string;

  /** Tokens left as of `refilledAt`; fractional between refills. */
  @Column({ type: 'double precision' })
  tokens: number;

  /** Whether the last take got a token. */
  @Column({ type: 'boolean' })
  allowed: boolean;

  @Column({ name: 'refilled_at', type: 'timestamptz' })
  refilledAt: Date;

  /** When the bucket is full again if nobody takes from it: from then on the row is the same as no row. */
  @Column({ name: 'full_at', type: 'timestamptz' })
  fullAt: Date;
}
