import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { BucketStore } from './bucket-store';
import { InMemoryBucketStore } from './in-memory-bucket-store';
import { PostgresBucketStore } from './postgres-bucket-store';
import { AUTH_LIMIT, GENERAL_LIMIT, RATE_LIMIT_RULES, RateLimitMiddleware } from './rate-limit.middleware';
import { RateLimitSweep } from './rate-limit-sweep';

@Module({
  imports: [AuthModule],
  providers: [
    PostgresBucketStore,
    {
      // RATE_LIMIT_STORE: shared by the fleet in PostgreSQL (default), or in this process.
      provide: BucketStore,
      inject: [APP_CONFIG, PostgresBucketStore],
      useFactory: (config: AppConfig, shared: PostgresBucketStore): BucketStore =>
        config.rateLimitStore === 'memory' ? new InMemoryBucketStore() : shared,
    },
    RateLimitSweep,
    { provide: RATE_LIMIT_RULES, useValue: { general: GENERAL_LIMIT, auth: AUTH_LIMIT } },
    RateLimitMiddleware,
  ],
  exports: [RateLimitMiddleware],
})
export class RateLimitModule {}
