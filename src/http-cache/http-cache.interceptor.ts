import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { defer, lastValueFrom, type Observable } from 'rxjs';
import { Metrics } from '../metrics/metrics';
import { routeTemplateOf } from '../common/http/route-template';
import { cacheControlFor, HTTP_CACHE_POLICY, type HttpCachePolicy } from './http-cache-policy';
import type { StoredFailure } from './http-cache-store';
import { HttpCacheService } from './http-cache.service';
import { failureFromErrorAnswer } from './stored-failure';

/**
 * Requests already answered through the cache. `@HttpCache` on a controller and on
 * one of its methods binds the interceptor twice; the inner one must step aside, or
 * it would join the outer one's execution and wait for itself.
 */
const requestsInCache = new WeakSet<Request>();

/**
 * Bound by `@HttpCache` to the routes that opt in. As an interceptor it runs after
 * the guards (JWT parsing, authentication checks) and wraps validation and the
 * handler, as the pipeline of the specification orders. Only GET is cached.
 */
@Injectable()
export class HttpCacheInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly cache: HttpCacheService,
    private readonly metrics: Metrics,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const policy = this.reflector.getAllAndOverride<HttpCachePolicy | undefined>(HTTP_CACHE_POLICY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (policy === undefined || context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (req.method !== 'GET' || requestsInCache.has(req)) return next.handle();
    requestsInCache.add(req);
    const res = http.getResponse<Response>();
    const route = routeTemplateOf(req);
    // A route behind a guard is never answered before routing: the guard must run.
    const fastLane = hasGuards(context) ? undefined : { route };

    return defer(async () => {
      // A miss runs the handler; a hit (or joining another request's run) does not.
      let ranHandler = false;
      const outcome = await this.cache.answer(
        req.originalUrl,
        policy,
        () => {
          ranHandler = true;
          return lastValueFrom(next.handle(), { defaultValue: undefined });
        },
        fastLane,
      );
      this.metrics.countCacheRequest(route, !ranHandler);
      res.setHeader('Cache-Control', cacheControlFor(outcome.maxAgeSeconds));
      if (!outcome.ok) {
        if (outcome.rememberAnswer) rememberErrorAnswer(res, outcome.rememberAnswer);
        throw outcome.error;
      }
      if (outcome.body === null) return undefined;
      // ServiceExpressAdapter, which configureApp requires, sends a Buffer as the bytes it holds.
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      return outcome.body;
    });
  }
}

function hasGuards(context: ExecutionContext): boolean {
  return [context.getHandler(), context.getClass()].some((target) => {
    const guards: unknown = Reflect.getMetadata(GUARDS_METADATA, target);
    return Array.isArray(guards) && guards.length > 0;
  });
}

/**
 * Hands the error body the exception filter is about to send for this response to
 * `remember`. The filter stays the one place that turns a fault into an answer; the
 * cache keeps exactly what it sent, never the exception itself.
 */
function rememberErrorAnswer(res: Response, remember: (failure: StoredFailure) => Promise<void>): void {
  const sendJson = res.json.bind(res);
  res.json = (body: unknown) => {
    res.json = sendJson;
    const failure = failureFromErrorAnswer(res.statusCode, body, res.getHeader('Retry-After'));
    if (failure !== undefined) void remember(failure);
    return sendJson(body);
  };
}
