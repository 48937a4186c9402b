import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * The fleet: a registry of live instances (each writes its heartbeat and what it
 * runs), the analysis scheduler's pause state, stored once for every instance, and
 * an index to count analyses by outcome.
 */
export class Fleet1764400000000 implements MigrationInterface {
  name = 'Fleet1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE fleet_instances (
        id varchar(64) PRIMARY KEY,
        host varchar(64) NOT NULL,
        pid integer NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now(),
        analysis_status varchar(8) NOT NULL DEFAULT 'paused'
          CONSTRAINT ck_fleet_instances_analysis_status CHECK (analysis_status IN ('running', 'paused')),
        analysis_active integer NOT NULL DEFAULT 0,
        analysis_concurrency integer NOT NULL DEFAULT 0,
        singleton_jobs text[] NOT NULL DEFAULT '{}'
      )`);
    await queryRunner.query(`
      CREATE TABLE analysis_scheduler_settings (
        id boolean PRIMARY KEY DEFAULT true CONSTRAINT ck_analysis_scheduler_settings_one_row CHECK (id),
        paused boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The fleet's status counts analyses by outcome: an index-only scan instead of reading the table.
    await queryRunner.query('CREATE INDEX ix_analyses_status ON analyses (status)');
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
