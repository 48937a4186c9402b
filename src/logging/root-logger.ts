import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import type { AppConfig } from '../config/app-config';
import { Redactor, secretsOf } from './redaction';

const redactors = new WeakMap<Logger, Redactor>();

/**
 * The process's one pino logger: JSON lines in dev and production, one readable
 * line per entry in local. Every line, whoever wrote it (request log, exception
 * filter, services, Nest itself), passes through one `Redactor` on its way out,
 * which knows the secrets of `config`; `protectSecrets` adds those resolved later.
 * `destination` replaces stdout (tests capture the log with it).
 */
export function createRootLogger(
  config: Pick<AppConfig, 'appEnv' | 'logLevel'> & Partial<AppConfig>,
  destination?: DestinationStream,
): Logger {
  const redactor = new Redactor();
  redactor.addSecrets(secretsOf(config));
  const readable = config.appEnv === 'local' && config.logLevel !== 'silent' && destination === undefined && prettyPrinterInstalled();
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: { service: 'disclosure-briefing' },
    hooks: { streamWrite: (line) => redactor.redact(line) },
    transport: readable
      ? {
          target: 'pino-pretty',
          options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' },
        }
      : undefined,
  };
  const logger = destination === undefined ? pino(options) : pino(options, destination);
  redactors.set(logger, redactor);
  return logger;
}

/** pino-pretty is a development dependency: a production install logs JSON lines in every APP_ENV. */
function prettyPrinterInstalled(): boolean {
  try {
    require.resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers the secrets of the final configuration (local secrets are generated
 * after the logger starts) with the redaction of a root logger. A logger not made
 * by `createRootLogger` (a test's own) is left as it is.
 */
export function protectSecrets(logger: Logger, config: AppConfig): void {
  redactors.get(logger)?.addSecrets(secretsOf(config));
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Access log and request id for every request. It is the outermost middleware,
 * so rate-limited and malformed requests are logged with their id too; an
 * incoming `X-Request-Id` is kept when it is well formed. It logs the method and
 * the URL (credentials in it are redacted on the way out), never headers or bodies.
 */
export function createRequestLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    quietReqLogger: true,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/health/ready' },
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
