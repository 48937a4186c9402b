import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

/**
 * The last run of each background job, whichever instance ran it, for the admin list of
 * jobs (GET /api/v1/admin/jobs): when it last started, finished and succeeded, its last
 * error, the instance running it now, and when a loop job runs next.
 */
export class JobStates1764500000000 implements MigrationInterface {
  name = 'JobStates1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE job_states (
         name varchar(64) PRIMARY KEY,
         running_on varchar(64) NULL,
         last_started_at timestamptz NULL,
         last_finished_at timestamptz NULL,
         last_succeeded_at timestamptz NULL,
         last_error text NULL,
         last_error_at timestamptz NULL,
         next_run_at timestamptz NULL,
         updated_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
