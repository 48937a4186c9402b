// First: OpenTelemetry patches the libraries below as they load (when tracing is on).
import { tracing } from './tracing/preload';
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { ServiceExpressAdapter } from './common/http/express-adapter';
import { describeListenAddress } from './common/http/http.config';
import { type AppConfig, loadConfig } from './app-config';
import { ConfigError } from './config/env-reader';
import { ensureLocalSecrets } from './config/local-secrets';
import { describeStartup } from './startup-summary';
import { isDatabaseUnavailable } from './database/database-errors';
import { dailyKstTime } from './jobs/job-catalog';
import { createRootLogger } from './logging/root-logger';
import { Metrics } from './metrics/metrics';
import { handleProcessFaults } from './process-faults';

/** The one line a failed start prints before exiting with 1. */
const BOOT_FAILED = 'the service could not start';
/** Stopping what a failed start already holds (what a launcher started before it) must not turn into a hang. */
const RELEASE_TIMEOUT_MS = 15_000;

/**
 * What a launcher starts before the service (`npm start` starts its local stand-ins here),
 * once the configuration is valid: it answers environment variables that point the service
 * at what it started, and registers how to stop that after the service.
 */
export type Prelude = (context: {
  config: AppConfig;
  log: { info(line: string): void; warn(line: string): void };
  stopAfterService(stop: () => Promise<void>): void;
  /** Called once the service listens, with its address (what the launcher's own notices can then name). */
  whenServing(serving: (address: AddressInfo) => void): void;
}) => Promise<Record<string, string>>;

/** Validates the environment, then serves; every start-up failure is one line and exit 1. */
export async function bootstrap(prelude?: Prelude): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const logger = createRootLogger(config);
  const log = logger.child({ context: 'Bootstrap' });

  const stopsAfterService: Array<() => Promise<void>> = [];
  const whenServing: Array<(address: AddressInfo) => void> = [];
  let app: NestExpressApplication | undefined;
  let booting = true;
  let stopping = false;

  const release = async () => {
    await app?.close();
    for (const stop of stopsAfterService.reverse()) await stop();
    // The spans of the shutdown itself are flushed last.
    await tracing?.shutdown().catch((error: unknown) => log.warn({ err: error }, 'tracing did not flush its last spans'));
  };
  /** Every start-up failure ends here: one line on stderr (the detail in the debug log), then exit 1. */
  const failBoot = async (error: unknown) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${BOOT_FAILED}: ${describeBootFailure(error, config)}\n`);
    log.debug({ err: error }, BOOT_FAILED);
    await within(release(), RELEASE_TIMEOUT_MS).catch(() => undefined);
    logger.flush();
    process.exit(1);
  };
  const shutdown = async (why: string, code: number) => {
    if (stopping) return;
    stopping = true;
    log.info(`${why}: shutting down`);
    try {
      await release();
    } catch (error) {
      log.error({ err: error }, 'shutdown did not complete cleanly');
      code = code || 1;
    }
    logger.flush();
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown('SIGINT', 0));
  process.once('SIGTERM', () => void shutdown('SIGTERM', 0));
  handleProcessFaults(process, log, {
    booting: () => booting,
    failBoot: (error) => void failBoot(error),
    shutdown: (why) => void shutdown(why, 1),
    survived: (kind, source) => app?.get(Metrics).uncaughtErrors.inc({ kind, source }),
  });

  try {
    let supplied: Record<string, string> = {};
    if (prelude) {
      supplied = await prelude({
        config,
        log,
        stopAfterService: (stop) => stopsAfterService.push(stop),
        whenServing: (serving) => whenServing.push(serving),
      });
      config = loadConfig({ ...process.env, ...supplied });
    }
    const adminKeyGiven = config.adminKey !== undefined;
    config = ensureLocalSecrets(config, (line) => log.warn(line));

    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logger), new ServiceExpressAdapter(), {
      bodyParser: false,
      bufferLogs: true,
      // Nest would otherwise exit on its own, leaving what the launcher started running.
      abortOnError: false,
    });
    configureApp(app, config);
    await (config.host === undefined ? app.listen(config.port) : app.listen(config.port, config.host));
    booting = false;
    const address = app.getHttpServer().address() as AddressInfo;
    log.info(`listening on ${describeListenAddress(address)} (APP_ENV=${config.appEnv}); API docs at /docs`);
    const summary = describeStartup(
      config,
      { supplied: new Set(Object.keys(supplied)), generatedAdminKey: !adminKeyGiven && config.adminKey !== undefined },
      { retention: dailyKstTime('retention'), stockSync: dailyKstTime('stock-sync') },
    );
    for (const line of summary) log.info(line);
    for (const serving of whenServing) serving(address);
    log.info(
      tracing
        ? 'tracing: spans exported over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)'
        : 'tracing off: set OTEL_EXPORTER_OTLP_ENDPOINT to export spans',
    );
  } catch (error) {
    await failBoot(error);
  }
}

/** What went wrong at start, in one line an operator can act on; never a credential. */
function describeBootFailure(error: unknown, config: AppConfig): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = (typeof message === 'string' ? message : String(error)).replace(/\s+/g, ' ').trim();
  const database = config.databaseUrl ? `the database at ${new URL(config.databaseUrl).host}` : 'the database';
  if (code === 'EADDRINUSE') return `port ${config.port} is already in use (set PORT to a free port)`;
  if (code === 'EACCES' && /listen/.test(text)) return `not allowed to listen on port ${config.port} (set PORT above 1023)`;
  if (code === 'EADDRNOTAVAIL') return `HOST ${config.host} is not an address of this machine (set HOST to one of its addresses)`;
  if (code === 'EAFNOSUPPORT') return `HOST ${config.host} needs IPv6, which this machine does not have (set HOST=0.0.0.0)`;
  if (code === '28P01') return `${database} refused the user name or password of DATABASE_URL`;
  if (code === '3D000') return `${database}: ${text} (check the database name in DATABASE_URL)`;
  if (isDatabaseUnavailable(error)) return `${database} is unreachable: ${text}`;
  return text;
}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  return Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref())]);
}

// `node dist/src/main.js` serves; a launcher requires this file and calls `bootstrap` itself.
if (require.main === module) void bootstrap();
