import { Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { buildDataSourceOptions } from './data-source-options';
import { runMigrationsLocked } from './migrate';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        if (!config.databaseUrl) throw new Error('databaseUrl must be resolved before the application module starts');
        return buildDataSourceOptions(config.databaseUrl);
      },
      // Migrations run before any module touches the database.
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        const applied = await runMigrationsLocked(dataSource);
        if (applied.length > 0) new Logger('Database').log(`applied migrations: ${applied.join(', ')}`);
        return dataSource;
      },
    }),
  ],
})
export class DatabaseModule {}
