import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from './entities';

/**
 * The TypeORM options shared by the server and by the migration CLI (`ormconfig.ts`).
 * The schema is owned by the migrations: `synchronize` stays off everywhere.
 */
export function buildDataSourceOptions(databaseUrl: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 10_000,
      // A runaway query must not hold a connection forever.
      statement_timeout: 30_000,
      application_name: 'disclosure-briefing',
    },
  };
}
