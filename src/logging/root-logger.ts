import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import type { AppConfig } from '../config/app-config';

/** Headers whose values are credentials and never reach a log line. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers["x-admin-key"]',
  'req.headers["x-worker-secret"]',
  'req.headers["x-firebase-appcheck"]',
  'req.headers.cookie',
];

/**
 * The process's one pino logger: JSON lines in dev and production, one readable
 * line per entry in local.
 */
export function createRootLogger(config: Pick<AppConfig, 'appEnv' | 'logLevel'>): Logger {
  const readable = config.appEnv === 'local' && config.logLevel !== 'silent';
  return pino({
    level: config.logLevel,
    base: { service: 'disclosure-briefing' },
    redact: { paths: REDACTED, censor: '[redacted]' },
    transport: readable
      ? {
          target: 'pino-pretty',
          options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' },
        }
      : undefined,
  });
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Query parameters that carry credentials (a store's shared secret, a callback signature). */
const SECRET_QUERY_PARAMS = /([?&](?:token|secret|signature|access_token|key)=)[^&]*/gi;

export function redactQuerySecrets(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[redacted]');
}

/**
 * Access log and request id for every request. It is the outermost middleware,
 * so rate-limited and malformed requests are logged with their id too; an
 * incoming `X-Request-Id` is kept when it is well formed.
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
      req: (req: { method: string; url: string }) => ({ method: req.method, url: redactQuerySecrets(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
