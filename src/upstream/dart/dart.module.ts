import { Inject, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock, SystemClock } from '../../common/clock';
import type { DartConfig } from './dart.config';
import { APP_CONFIG } from '../../config/config.module';
import { Metrics } from '../../metrics/metrics';
import { type DartBudget, LocalDartBudget } from './dart-budget';
import { DartClient } from './dart-client';
import { PostgresDartBudget } from './postgres-dart-budget';
import { DartBudgetDayEntity, DartRequestStartEntity } from './dart-budget.entities';

/**
 * The Clock that times the per-minute budget and the retries (its monotonic time and sleep): the
 * system's, even when tests move the app's Clock; tests that move the budget's time pass a FakeClock.
 */
export const DART_BUDGET_TIME = Symbol('DART_BUDGET_TIME');
/** The request budget every DART call waits for (DART_BUDGET_STORE). */
export const DART_BUDGET = Symbol('DART_BUDGET');

/**
 * One `DartClient` for the whole process, so every job shares its budget (per minute and per KST day);
 * with DART_BUDGET_STORE=postgres (the default) that budget is shared by every instance too.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DartBudgetDayEntity, DartRequestStartEntity])],
  providers: [
    { provide: DART_BUDGET_TIME, useClass: SystemClock },
    {
      provide: DART_BUDGET,
      useFactory: (config: { dart: DartConfig }, clock: Clock, time: Clock, dataSource?: DataSource): DartBudget => {
        const limits = { requestsPerMinute: config.dart.requestsPerMinute, requestsPerDay: config.dart.requestsPerDay };
        const wallClock = () => clock.now();
        if (config.dart.budgetStore === 'memory') return new LocalDartBudget(limits, wallClock, time);
        // The database clock times the minute for the whole fleet; a FakeClock (tests) brings its own.
        const minuteClock = time instanceof SystemClock ? undefined : () => time.monotonicMs();
        if (!dataSource) throw new Error('DART_BUDGET_STORE=postgres needs the database; use memory for a module without one');
        return new PostgresDartBudget(dataSource, limits, wallClock, time, minuteClock);
      },
      // Optional: the memory store runs without a database (the module's own tests).
      inject: [APP_CONFIG, Clock, DART_BUDGET_TIME, { token: DataSource, optional: true }],
    },
    {
      provide: DartClient,
      useFactory: (config: { dart: DartConfig }, clock: Clock, time: Clock, budget: DartBudget, metrics: Metrics) => {
        metrics.sources.dartBudget = () => {
          const status = budget.status();
          return {
            minuteLeft: Math.max(0, status.minuteLimit - status.usedLastMinute),
            dayLeft: status.exhaustedUntil === null ? Math.max(0, status.dailyLimit - status.usedToday) : 0,
          };
        };
        const onAttempt = metrics.upstreamListener('dart');
        return new DartClient(config.dart, { time, wallClock: () => clock.now(), budget, onAttempt });
      },
      inject: [APP_CONFIG, Clock, DART_BUDGET_TIME, DART_BUDGET, Metrics],
    },
  ],
  exports: [DartClient],
})
export class DartModule implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(@Inject(DART_BUDGET) private readonly budget: DartBudget) {}

  onApplicationBootstrap(): void {
    if (this.budget instanceof PostgresDartBudget) this.budget.startRefreshing();
  }

  onModuleDestroy(): void {
    if (this.budget instanceof PostgresDartBudget) this.budget.stopRefreshing();
  }
}
