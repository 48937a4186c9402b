import { Module } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { DartClient } from './dart-client';
import { systemTime, type TimeSource } from './request-budget';

/** The monotonic time of the per-minute budget; tests replace it with a virtual one. */
export const DART_BUDGET_TIME = Symbol('DART_BUDGET_TIME');

/** One `DartClient` for the whole process, so every job shares its budget (per minute and per KST day). */
@Module({
  providers: [
    { provide: DART_BUDGET_TIME, useValue: systemTime },
    {
      provide: DartClient,
      useFactory: (config: AppConfig, clock: Clock, time: TimeSource) =>
        new DartClient(config.dart, { now: time.now, sleep: time.sleep, wallClock: () => clock.now() }),
      inject: [APP_CONFIG, Clock, DART_BUDGET_TIME],
    },
  ],
  exports: [DartClient],
})
export class DartModule {}
