import { Global, Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Metrics } from './metrics';
import { MetricsController } from './metrics.controller';

/** The metrics registry of this application instance, for every feature to record into; and GET /metrics. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [
    {
      provide: Metrics,
      // Optional: modules tested without a database still get metrics.
      inject: [{ token: getDataSourceToken(), optional: true }],
      useFactory: (dataSource?: DataSource) => {
        const metrics = new Metrics();
        if (dataSource) {
          metrics.sources.databasePool = () => {
            const pool = (dataSource.driver as PostgresDriver).master as { totalCount: number; idleCount: number; waitingCount: number };
            return { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
          };
          // Bounded by the pool's own timeouts (connect 2.5 s, query 6 s): within Prometheus's default scrape timeout.
          metrics.sources.databasePing = () => dataSource.query('SELECT 1');
        }
        return metrics;
      },
    },
  ],
  exports: [Metrics],
})
export class MetricsModule {}
