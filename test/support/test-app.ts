import type { Server } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { ServiceExpressAdapter } from '../../src/common/http/express-adapter';
import { Clock } from '../../src/common/clock';
import { type AppConfig, loadConfig } from '../../src/app-config';
import { RATE_LIMIT_RULES, type RateLimitRules } from '../../src/rate-limit/rate-limit.middleware';
import { FakeClock } from './fake-clock';
import { createTestDatabase, type TestDatabase } from './test-database';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
/** Header the tests use to present themselves as different clients. */
export const TEST_CLIENT_IP_HEADER = 'x-test-client-ip';

export interface TestAppOptions {
  /** Environment variables on top of the test defaults. */
  env?: Record<string, string | undefined>;
  /** Reuse a database (e.g. a second app on the same data); default: a fresh one. */
  database?: TestDatabase;
  /** Replace the specification's rate limits, for tests about something else. */
  rateLimits?: RateLimitRules;
  /** The root logger (default: built from the configuration, silent in tests). */
  logger?: Logger;
  /** The clock (default: a fake clock at the real current time). */
  clock?: FakeClock;
  /** Providers to replace, e.g. `{ provide: PushSender, useValue: double }` for an outside service without an emulator. */
  overrides?: { provide: unknown; useValue: unknown }[];
}

export interface TestApp {
  app: NestExpressApplication;
  http: Server;
  clock: FakeClock;
  config: AppConfig;
  dataSource: DataSource;
  database: TestDatabase;
  close(): Promise<void>;
}

/** Production defaults start the disclosure jobs; tests of a production app's HTTP surface turn them off. */
export const QUIET_JOBS = {
  DISCLOSURE_MONITOR_AUTO_START: 'false',
  ANALYSIS_SCHEDULER_AUTO_START: 'false',
  STOCK_SYNC_SCHEDULER_ENABLED: 'false',
};

/** An admin key long enough for production (32 characters at least). */
export const PRODUCTION_ADMIN_KEY = 'a-production-admin-key-of-32-chars!';

/** Rate limits high enough never to interfere with tests of other features. */
export const RELAXED_RATE_LIMITS: RateLimitRules = {
  general: { name: 'general', capacity: 1_000_000, refillPerSecond: 1_000_000 },
  auth: { name: 'auth', capacity: 1_000_000, refillPerSecond: 1_000_000 },
};

/**
 * Boots the real AppModule with the real request pipeline (configureApp) on its
 * own database. Only the clock is replaced, so tests can move time, plus the
 * providers a test names in `overrides`.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const ownsDatabase = options.database === undefined;
  const config = loadConfig({
    APP_ENV: 'local',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    TRUSTED_CLIENT_IP_HEADER: TEST_CLIENT_IP_HEADER,
    DATA_DIR: '/nonexistent-test-data-dir',
    // Nothing reaches the real disclosure system: files that need it start the sandbox
    // and override these two.
    DART_API_KEY: 'test-dart-key',
    DART_API_BASE_URL: 'http://127.0.0.1:9/api',
    DATABASE_URL: database.url,
    // New-filing pushes go at once unless a test is about waiting for the one-liner (push-summary.e2e-spec.ts).
    PUSH_SUMMARY_WAIT_MS: '0',
    ...options.env,
  });
  const clock = options.clock ?? new FakeClock();
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot(config, options.logger)] })
    .overrideProvider(Clock)
    .useValue(clock);
  if (options.rateLimits) builder = builder.overrideProvider(RATE_LIMIT_RULES).useValue(options.rateLimits);
  for (const override of options.overrides ?? []) builder = builder.overrideProvider(override.provide).useValue(override.useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(new ServiceExpressAdapter(), { bodyParser: false });
  configureApp(app, config);
  await app.init();
  return {
    app,
    http: app.getHttpServer() as Server,
    clock,
    config,
    dataSource: app.get(DataSource),
    database,
    close: async () => {
      await app.close();
      if (ownsDatabase) await database.drop();
    },
  };
}
