import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Controller, type DynamicModule, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { configureApp } from '../src/app.setup';
import { ServiceExpressAdapter } from '../src/common/http/express-adapter';
import { preparedStatementName } from '../src/database/prepared-statements';
import { HttpCacheService } from '../src/http-cache/http-cache.service';
import { type AppConfig, loadConfig } from '../src/app-config';
import { createRootLogger } from '../src/logging/root-logger';

/** What the bare route answers: a constant, small JSON array. */
const BARE_BODY: ReadonlyArray<{ id: number; name: string; ok: boolean }> = Array.from({ length: 10 }, (_, i) => ({
  id: i + 1,
  name: `item-${i + 1}`,
  ok: true,
}));

/** A constant list shaped like a page of 50 filings with summaries (about 16 kB of JSON). */
const BARE_LARGE_BODY: ReadonlyArray<Record<string, string>> = Array.from({ length: 50 }, (_, i) => ({
  rcept_no: `20261120${String(i + 1).padStart(6, '0')}`,
  corp_name: '한성바이오',
  corp_code: '01000012',
  stock_code: '123450',
  report_name: '임원ㆍ주요주주특정증권등소유상황보고서',
  rcept_dt: '20261120',
  submitter: '김민준',
  summary: '한성바이오, 3분기 영업이익이 전년 동기 대비 18% 늘었습니다',
}));

/**
 * The reference routes: the same Express pipeline as every other route, no handler
 * work, no cache. `bare` is the brief's reference; `bare-large` answers a body as
 * large as a cached page of 50 filings, to tell the cost of the cache from the cost of the payload.
 */
@Controller('bench')
class BareController {
  @Get('bare')
  bare(): ReadonlyArray<{ id: number; name: string; ok: boolean }> {
    return BARE_BODY;
  }

  @Get('bare-large')
  bareLarge(): ReadonlyArray<Record<string, string>> {
    return BARE_LARGE_BODY;
  }
}

/** The whole service plus the bare route, as one root module. */
@Module({})
class BenchRootModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: BenchRootModule,
      imports: [AppModule.forRoot(config, createRootLogger(config))],
      controllers: [BareController],
    };
  }
}

export interface CapturedQuery {
  sql: string;
  params: unknown[];
  /** The name the service's pool prepares this text under (src/database/prepared-statements.ts), if any. */
  preparedAs?: string;
}

/** Transaction control: not a statement of the service's own. */
const TRANSACTION_CONTROL = /^\s*(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT)\b/i;

/**
 * Counts (and on demand records) the SQL the services send, at the application pool's
 * query runners: `dataSource.query`, repositories and transactions' managers alike.
 */
export class QueryTap {
  count = 0;
  /** Time from handing each statement to the driver until its rows came back, summed: the SQL as the service waits for it. */
  roundTripMs = 0;
  private captured: CapturedQuery[] | null = null;

  constructor(dataSource: DataSource) {
    const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
    dataSource.createQueryRunner = (...args) => {
      const runner = createQueryRunner(...args);
      const query = runner.query.bind(runner) as (sql: string, params?: unknown[], ...rest: unknown[]) => Promise<unknown>;
      runner.query = ((sql: string, params?: unknown[], ...rest: unknown[]) => {
        if (TRANSACTION_CONTROL.test(sql)) return query(sql, params, ...rest);
        this.count += 1;
        this.captured?.push({ sql, params: params ?? [], preparedAs: preparedStatementName(sql) });
        const started = performance.now();
        return query(sql, params, ...rest).finally(() => {
          this.roundTripMs += performance.now() - started;
        });
      }) as typeof runner.query;
      return runner;
    };
  }

  /** The statements sent while `work` runs. */
  async capture(work: () => Promise<void>): Promise<CapturedQuery[]> {
    const captured: CapturedQuery[] = [];
    this.captured = captured;
    try {
      await work();
    } finally {
      this.captured = null;
    }
    return captured;
  }
}

export interface BenchApp {
  origin: string;
  config: AppConfig;
  adminKey: string;
  tap: QueryTap;
  httpServer: Server;
  clearHttpCache(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The configuration every benchmark runs with: local mode, quiet, fresh secrets, no
 * scheduled work (each benchmark drives the work it measures) and no DART budget.
 */
export function benchConfig(env: Record<string, string | undefined>): AppConfig {
  return loadConfig({
    APP_ENV: 'local',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    DATA_DIR: path.join(os.tmpdir(), 'briefing-bench-unused-data-dir'),
    JWT_SECRET: randomBytes(32).toString('hex'),
    DART_REQUESTS_PER_MINUTE: '1000000',
    DART_REQUESTS_PER_DAY: '100000000',
    DISCLOSURE_MONITOR_AUTO_START: 'false',
    ANALYSIS_SCHEDULER_AUTO_START: 'false',
    STOCK_SYNC_SCHEDULER_ENABLED: 'false',
    ...env,
  });
}

/**
 * Boots the real AppModule as the server does (configuration validated by
 * `loadConfig`, the request pipeline of `configureApp`, then `listen`), on a
 * loopback port; migrations run during start-up.
 */
export async function startBenchApp(options: { databaseUrl: string; dartBaseUrl: string; dartApiKey: string }): Promise<BenchApp> {
  const adminKey = randomBytes(24).toString('hex');
  const config = benchConfig({
    PORT: '0',
    ADMIN_KEY: adminKey,
    DATABASE_URL: options.databaseUrl,
    DART_API_BASE_URL: options.dartBaseUrl,
    DART_API_KEY: options.dartApiKey,
  });
  const app = await NestFactory.create<NestExpressApplication>(BenchRootModule.forRoot(config), new ServiceExpressAdapter(), {
    bodyParser: false,
    bufferLogs: true,
  });
  try {
    configureApp(app, config);
    const tap = new QueryTap(app.get(DataSource));
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const cache = app.get(HttpCacheService);
    return {
      origin: `http://127.0.0.1:${port}`,
      config,
      adminKey,
      tap,
      httpServer: app.getHttpServer() as Server,
      clearHttpCache: () => cache.clear(),
      close: () => app.close(),
    };
  } catch (error) {
    await app.close();
    throw error;
  }
}
