import { Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { APP_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from './database.config';
import { isDatabaseUnavailable } from './database-errors';
import { buildDataSourceOptions, buildMigrationDataSourceOptions } from './data-source-options';
import { PendingMigrationsError, pendingMigrationsLocked, runMigrationsLocked } from './migrate';

/**
 * Start-up tries a few times while the database is unreachable (it may be starting
 * next to us), about 10 s in all; a wrong password or database name fails at once.
 */
const CONNECT_ATTEMPTS = 5;
const CONNECT_RETRY_DELAY_MS = 2_000;

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: DatabaseConfig) => {
        if (!config.databaseUrl) throw new Error('databaseUrl must be resolved before the application module starts');
        return {
          ...buildDataSourceOptions(config.databaseUrl),
          // The entities the feature modules register with TypeOrmModule.forFeature.
          autoLoadEntities: true,
          retryAttempts: CONNECT_ATTEMPTS,
          retryDelay: CONNECT_RETRY_DELAY_MS,
          toRetry: isDatabaseUnavailable,
          // Carries MIGRATIONS_AT_START to the factory below, which applies them itself (under the lock).
          migrationsRun: config.migrationsAtStart,
        };
      },
      // Migrations run (or, switched off, are checked), on a connection without request timeouts,
      // before any module touches the database.
      dataSourceFactory: async (options) => {
        const { url, migrationsRun } = options as PostgresConnectionOptions;
        const migrations = await new DataSource(buildMigrationDataSourceOptions(url!)).initialize();
        try {
          if (migrationsRun) {
            const applied = await runMigrationsLocked(migrations);
            if (applied.length > 0) new Logger('Database').log(`applied migrations: ${applied.join(', ')}`);
          } else {
            const pending = await pendingMigrationsLocked(migrations);
            if (pending.length > 0) throw new PendingMigrationsError(pending);
          }
        } finally {
          await migrations.destroy();
        }
        return new DataSource({ ...options!, migrationsRun: false } as PostgresConnectionOptions).initialize();
      },
    }),
  ],
})
export class DatabaseModule {}
