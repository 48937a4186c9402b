import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { Clock, SystemClock } from '../common/clock';
import { APP_CONFIG } from '../config/config.module';
import { BucketStore, RATE_LIMIT_TIME } from './bucket-store';
import { InMemoryBucketStore } from './in-memory-bucket-store';
import { PostgresBucketStore } from './postgres-bucket-store';
import { AUTH_LIMIT, GENERAL_LIMIT, RATE_LIMIT_RULES, RateLimitMiddleware } from './rate-limit.middleware';
import { RateLimitSweep } from './rate-limit-sweep';
import type { RateLimitConfig } from './rate-limit.config';
import { RateLimitBucketEntity } from './rate-limit-bucket.entity';

@Module({
  imports: [TypeOrmModule.forFeature([RateLimitBucketEntity]), AuthModule],
  providers: [
    { provide: RATE_LIMIT_TIME, useClass: SystemClock },
    PostgresBucketStore,
    {
      // RATE_LIMIT_STORE: shared by the fleet in PostgreSQL (default), or in this process.
      provide: BucketStore,
      inject: [APP_CONFIG, PostgresBucketStore, RATE_LIMIT_TIME],
      useFactory: (config: RateLimitConfig, shared: PostgresBucketStore, time: Clock): BucketStore =>
        config.rateLimitStore === 'memory' ? new InMemoryBucketStore(time) : shared,
    },
    RateLimitSweep,
    { provide: RATE_LIMIT_RULES, useValue: { general: GENERAL_LIMIT, auth: AUTH_LIMIT } },
    RateLimitMiddleware,
  ],
  exports: [RateLimitMiddleware],
})
export class RateLimitModule {}
