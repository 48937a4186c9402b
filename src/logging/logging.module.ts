import { DynamicModule, Global, Module } from '@nestjs/common';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * Nest's logger backed by the root pino logger. The request logger
 * (`createRequestLogger`), installed by `configureApp` as the outermost middleware,
 * runs each request in nestjs-pino's async context, so every line of a request
 * carries its id; nestjs-pino's own middleware, which would do it again later in the
 * pipeline, is bound to no route.
 */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(logger: Logger): DynamicModule {
    // nestjs-pino sets its root only when it creates the request logger itself; with
    // `useExisting` we do, so that background jobs (runAsJob) log through this one.
    (PinoLogger as { root: Logger }).root = logger;
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger }, useExisting: true, forRoutes: [] })],
      providers: [{ provide: ROOT_LOGGER, useValue: logger }],
      exports: [ROOT_LOGGER],
    };
  }
}
