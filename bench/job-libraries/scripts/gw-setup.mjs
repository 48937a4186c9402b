// Installs graphile-worker's schema in a clean state (its migrations, run once before the workers start).
import { Logger, runMigrations } from 'graphile-worker';
import { dbUrl, sql } from './common.mjs';

export async function gwSetup(db) {
  await sql('DROP SCHEMA IF EXISTS graphile_worker CASCADE', [], db);
  await runMigrations({ connectionString: dbUrl(db), logger: new Logger(() => () => {}) });
}
