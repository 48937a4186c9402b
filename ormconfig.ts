import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/app-config';
import { buildMigrationDataSourceOptions } from './src/database/data-source-options';
import { ENTITIES } from './src/entities';

/**
 * The data source of the TypeORM CLI (`npm run migration:show`, `migration:run`),
 * built from the server's migration options, with every entity (src/entities.ts: the CLI
 * has no feature modules to register them). The server applies migrations
 * itself at start; the CLI needs DATABASE_URL because it does not start the
 * embedded PostgreSQL.
 */
const config = loadConfig(process.env);
if (!config.databaseUrl) {
  throw new Error('DATABASE_URL must be set to use the migration CLI');
}

export default new DataSource({ ...buildMigrationDataSourceOptions(config.databaseUrl), entities: ENTITIES });
