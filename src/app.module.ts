import { DynamicModule, Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import type { Logger } from 'pino';
import { AdsModule } from './ads/ads.module';
import { AdminModule } from './admin/admin.module';
import { AnalysisModule } from './analysis/analysis.module';
import { AttestationModule } from './attestation/attestation.module';
import { AuthModule } from './auth/auth.module';
import { CommonModule } from './common/common.module';
import { HttpCacheModule } from './http-cache/http-cache.module';
import { CompaniesModule } from './companies/companies.module';
import type { AppConfig } from './app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { FleetModule } from './fleet/fleet.module';
import { JobsModule } from './jobs/jobs.module';
import { DisclosuresModule } from './disclosures/disclosures.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { createRootLogger } from './logging/root-logger';
import { PushTokensModule } from './push-tokens/push-tokens.module';
import { PushModule } from './push/push.module';
import { QuotaHttpModule } from './quota/quota-http.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RetentionModule } from './retention/retention.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { StocksModule } from './stocks/stocks.module';
import { UsersModule } from './users/users.module';
import { WatchlistModule } from './watchlist/watchlist.module';

@Module({})
export class AppModule {
  /**
   * The whole service for one validated configuration. The server and the
   * end-to-end tests build it the same way.
   */
  static forRoot(config: AppConfig, logger: Logger = createRootLogger(config)): DynamicModule {
    if (!config.jwt.secret) throw new Error('jwt.secret must be resolved before the application module starts');
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        CommonModule,
        MetricsModule,
        EventEmitterModule.forRoot(),
        ScheduleModule.forRoot(),
        HttpCacheModule,
        DatabaseModule,
        FleetModule,
        JobsModule,
        UsersModule,
        AuthModule,
        RateLimitModule,
        AdminModule,
        HealthModule,
        StocksModule,
        DisclosuresModule,
        CompaniesModule,
        AnalysisModule,
        AttestationModule,
        QuotaHttpModule.forRoot(config),
        AdsModule,
        WatchlistModule,
        PushTokensModule,
        PushModule,
        SubscriptionsModule,
        RetentionModule,
      ],
    };
  }
}
