import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BucketStore } from './bucket-store';
import { InMemoryBucketStore } from './in-memory-bucket-store';
import { AUTH_LIMIT, GENERAL_LIMIT, RATE_LIMIT_RULES, RateLimitMiddleware } from './rate-limit.middleware';

@Module({
  imports: [AuthModule],
  providers: [
    { provide: BucketStore, useClass: InMemoryBucketStore },
    { provide: RATE_LIMIT_RULES, useValue: { general: GENERAL_LIMIT, auth: AUTH_LIMIT } },
    RateLimitMiddleware,
  ],
  exports: [RateLimitMiddleware],
})
export class RateLimitModule {}
