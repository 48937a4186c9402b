import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { type AppConfig, loadConfig } from './config/app-config';
import { ConfigError } from './config/env-reader';
import { ensureLocalSecrets } from './config/local-secrets';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './database/embedded-postgres';
import { createRootLogger } from './logging/root-logger';
import { type DartSandbox, startDartSandbox } from './sandbox/dart/dart-sandbox';

async function bootstrap(): Promise<void> {
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
  config = ensureLocalSecrets(config, (line) => log.warn(line));

  let embedded: EmbeddedDatabase | undefined;
  if (!config.databaseUrl) {
    const clusterDir = path.join(config.dataDir, 'postgres');
    embedded = await startEmbeddedPostgres({ clusterDir, databaseName: 'briefing', log: (line) => log.info(line) });
    config = { ...config, databaseUrl: embedded.url };
    log.warn(`DATABASE_URL is not set: using the embedded PostgreSQL in ${clusterDir} (${new URL(embedded.url).host})`);
  }

  let sandbox: DartSandbox | undefined;
  if (config.dart.sandbox) {
    sandbox = await startDartSandbox({ companyCount: 115_000, newFilingEveryMs: 20_000 });
    config = { ...config, dart: { ...config.dart, baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey } };
    log.warn(
      `DART_API_KEY is not set (APP_ENV=local): serving the bundled disclosure-system SANDBOX at ${sandbox.baseUrl} ` +
        '(generated companies and filings; a new filing every 20 s)',
    );
  }

  let app: NestExpressApplication | undefined;
  let stopping = false;
  const shutdown = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    log.info(`${reason}: shutting down`);
    try {
      await app?.close();
      await sandbox?.close();
      if (embedded) {
        await embedded.stop();
        log.info('embedded PostgreSQL stopped');
      }
    } catch (error) {
      log.error({ err: error }, 'shutdown did not complete cleanly');
      code = code || 1;
    }
    logger.flush();
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown('SIGINT', 0));
  process.once('SIGTERM', () => void shutdown('SIGTERM', 0));

  try {
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logger), {
      bodyParser: false,
      bufferLogs: true,
    });
    configureApp(app, config);
    await app.listen(config.port);
    const { port } = app.getHttpServer().address() as AddressInfo;
    log.info(`listening on http://localhost:${port} (APP_ENV=${config.appEnv}); API docs at /docs`);
  } catch (error) {
    log.fatal({ err: error }, 'the service could not start');
    await shutdown('start-up failed', 1);
  }
}

void bootstrap();
