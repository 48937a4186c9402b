import 'reflect-metadata';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ConfigError, EnvReader } from './config/env-reader';
import { APP_ENVS } from './config/environment';
import { buildMigrationDataSourceOptions } from './database/data-source-options';
import { databaseConfig } from './database/database.config';
import { runMigrationsLocked } from './database/migrate';
import { createRootLogger } from './logging/root-logger';
import { loggingConfig } from './logging/logging.config';
import { MIGRATIONS } from '../migrations';

/**
 * The settings the migration command reads: the database and the log, nothing else, so a
 * pre-deploy job needs only the database's credentials (docs/kubernetes.md).
 */
export function readMigrationConfig(env: Record<string, string | undefined>) {
  const read = new EnvReader(env);
  const appEnv = read.oneOf('APP_ENV', APP_ENVS, 'local');
  const production = appEnv === 'production';
  const database = databaseConfig(read, { appEnv, production });
  // Production's own rule already names it; elsewhere the embedded PostgreSQL is npm start's, not this command's.
  if (!production && read.raw('DATABASE_URL') === undefined) {
    read.fail('DATABASE_URL', 'set: the migration command applies the migrations to that database');
  }
  const config = { appEnv, ...loggingConfig(read), databaseUrl: database.databaseUrl };
  read.assertValid();
  return config as typeof config & { databaseUrl: string };
}

/**
 * Applies this version's pending migrations to `databaseUrl` under the lock the server
 * takes at start (runMigrationsLocked), so it is safe beside instances that are starting.
 * Returns the names it applied.
 */
export async function applyMigrations(databaseUrl: string, log: Pick<Logger, 'info'>): Promise<string[]> {
  const dataSource = await new DataSource(buildMigrationDataSourceOptions(databaseUrl)).initialize();
  try {
    const applied = await runMigrationsLocked(dataSource);
    log.info(
      applied.length > 0
        ? `applied migrations: ${applied.join(', ')}`
        : `no migration to apply: the database has all ${MIGRATIONS.length} migrations of this version`,
    );
    return applied;
  } finally {
    await dataSource.destroy();
  }
}

/** `node dist/src/migrate-main.js`: the pre-deploy step when MIGRATIONS_AT_START=false. Exit 0 when the schema is current. */
async function main(): Promise<void> {
  let config: ReturnType<typeof readMigrationConfig>;
  try {
    config = readMigrationConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const logger = createRootLogger(config);
  const log = logger.child({ context: 'Migrations' });
  try {
    await applyMigrations(config.databaseUrl, log);
    logger.flush();
  } catch (error) {
    log.error({ err: error }, `the migrations were not applied to the database at ${new URL(config.databaseUrl).host}`);
    logger.flush();
    process.exitCode = 1;
  }
}

if (require.main === module) void main();
