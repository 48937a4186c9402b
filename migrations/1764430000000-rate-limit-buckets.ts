import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * The rate-limit token buckets, shared by every instance (PostgresBucketStore).
 * UNLOGGED: no WAL for a row written on every mutating request; after a crash the
 * table comes back empty, which only gives every client a full burst again. A
 * fillfactor below 100 leaves room on each page so the updates of a take stay HOT
 * (no column of the primary key changes, and the table has no other index).
 */
export class RateLimitBuckets1764430000000 implements MigrationInterface {
  name = 'RateLimitBuckets1764430000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE rate_limit_buckets (
         rule text NOT NULL,
         key text NOT NULL,
         tokens double precision NOT NULL,
         allowed boolean NOT NULL,
         refilled_at timestamptz NOT NULL,
         full_at timestamptz NOT NULL,
         CONSTRAINT rate_limit_buckets_pkey PRIMARY KEY (rule, key)
       ) WITH (fillfactor = 70)`,
    );
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
