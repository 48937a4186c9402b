import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type Store, storage } from 'nestjs-pino/storage';
import type { Logger } from 'pino';
import type { Clock } from '../common/clock';
import { errorCodeOf } from '../common/errors/error-body';
import { routeTemplateOf } from '../common/http/route-template';
import { redactionOf } from './root-logger';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * The most of a URL an access line carries: a longer one is redacted whole, then cut to this
 * many characters, and the line says how long it was (`req.urlLength`).
 */
export const LOGGED_URL_MAX_CHARS = 512;
/** Probes answer often and say nothing worth a line. */
const UNLOGGED_PATHS = new Set(['/health', '/health/ready']);

/** What the access line keeps of a request, kept on its response for the shared 'close' listener. */
const ACCESS = Symbol('requestAccess');
interface Access {
  id: string;
  method: string;
  url: string;
  /** The clock's monotonic time at arrival. */
  startedAt: number;
  logger: Logger;
  clock: Clock;
}
type LoggedResponse = Response & { [ACCESS]?: Access };

/**
 * Access log and request id for every request. It is the outermost middleware, so
 * rate-limited and malformed requests are logged with their id too; an incoming
 * `X-Request-Id` is kept when it is well formed (at most 128 characters). It logs the
 * method and the URL, at most LOGGED_URL_MAX_CHARS of it (credentials in it are redacted
 * on the way out), the route template (`none` for unknown paths, as in the metrics) and
 * an error answer's `code`, never headers or bodies: what a client sends reaches the line
 * only bounded.
 *
 * Every line logged while the request is served carries `reqId`: the request runs in
 * nestjs-pino's async context with a child logger that is made only when something logs
 * (most requests log nothing but their access line, which is written with the id as a
 * field instead). One line per request, at `info`; `warn` for 4xx but 404, `error` for 5xx,
 * with `responseTime` in whole milliseconds on the monotonic time of `clock`. A 404 is a
 * client asking for what is not there, at `info` like a success: anyone can send them by
 * the thousand, and warnings should stay worth reading.
 */
export function createRequestLogger(root: Logger, clock: Clock): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    let child: Logger | undefined;
    const store = {
      get logger(): Logger {
        return (child ??= root.child({ reqId: id }));
      },
      // PinoLogger.assign replaces the request's logger.
      set logger(replacement: Logger) {
        child = replacement;
      },
      responseLogger: undefined,
    };
    if (!UNLOGGED_PATHS.has(req.url)) {
      (res as LoggedResponse)[ACCESS] = {
        id,
        method: req.method,
        url: req.originalUrl,
        startedAt: clock.monotonicMs(),
        logger: root,
        clock,
      };
      res.on('close', logAccess);
    }
    storage.run(store as unknown as Store, next);
  };
}

function logAccess(this: LoggedResponse): void {
  const access = this[ACCESS];
  if (access === undefined) return;
  const status = this.statusCode;
  const completed = this.writableFinished;
  const code = errorCodeOf(this);
  const line = {
    reqId: access.id,
    req: { ...loggedRequest(access), route: routeTemplateOf(this.req) },
    res: code === undefined ? { statusCode: status } : { statusCode: status, code },
    responseTime: Math.round(access.clock.monotonicMs() - access.startedAt),
  };
  if (!completed) access.logger.warn(line, 'request aborted');
  else if (status >= 500) access.logger.error(line, 'request errored');
  else if (status >= 400 && status !== 404) access.logger.warn(line, 'request completed');
  else access.logger.info(line, 'request completed');
}

function loggedRequest({ method, url, logger }: Access): { method: string; url: string; urlLength?: number } {
  if (url.length <= LOGGED_URL_MAX_CHARS) return { method, url };
  return { method, url: redactionOf(logger)(url).slice(0, LOGGED_URL_MAX_CHARS), urlLength: url.length };
}
