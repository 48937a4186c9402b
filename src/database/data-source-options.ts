import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { PostgresClient } from './postgres-client';

/**
 * Bounds that keep an unreachable or hung database from holding a request for
 * 10 s or more: a request waits at most `connectMs` for a connection (a new one,
 * or a free one from the pool), then at most `queryMs` per query. PostgreSQL
 * cancels a statement itself after `statementMs`, before the client gives up on
 * it, so the connection stays usable; `queryMs` is for a server that answers
 * nothing at all. Errors from these bounds are answered 503 (database-errors.ts).
 */
export const REQUEST_TIMEOUTS = {
  connectMs: 2_500,
  statementMs: 5_000,
  queryMs: 6_000,
  /** A transaction left open by a stuck caller releases its locks after this. */
  idleInTransactionMs: 10_000,
} as const;

const APPLICATION_NAME = 'disclosure-briefing';

function baseOptions(databaseUrl: string, extra: Record<string, unknown>): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    // No entities here: each feature module registers its own (TypeOrmModule.forFeature) and the
    // server's data source loads them (autoLoadEntities, database.module.ts); migrations need none.
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
    extra: {
      // pg's Pool makes its connections with this Client (postgres-client.ts).
      Client: PostgresClient,
      application_name: APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: REQUEST_TIMEOUTS.connectMs,
      ...extra,
    },
  };
}

/**
 * The TypeORM options of the server's pool and of the migration CLI (`ormconfig.ts`).
 * The schema is owned by the migrations: `synchronize` stays off everywhere.
 */
export function buildDataSourceOptions(databaseUrl: string, poolSize = 10): DataSourceOptions {
  return baseOptions(databaseUrl, {
    max: poolSize,
    statement_timeout: REQUEST_TIMEOUTS.statementMs,
    readTimeoutMs: REQUEST_TIMEOUTS.queryMs,
    idle_in_transaction_session_timeout: REQUEST_TIMEOUTS.idleInTransactionMs,
  });
}

/**
 * Options for applying migrations at start: no statement bounds, because an index
 * build may take minutes and an instance may wait on another's migration lock.
 * Two connections: one holds the lock, one runs the migrations.
 */
export function buildMigrationDataSourceOptions(databaseUrl: string): DataSourceOptions {
  return baseOptions(databaseUrl, { max: 2 });
}
