import { Injectable } from '@nestjs/common';
import type { ModulesContainer } from '@nestjs/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { Clock } from '../common/clock';
import { Metrics } from '../metrics/metrics';
import { ROUTE_TEMPLATE } from '../common/http/route-template';

/** A 2xx answer of a cached route, ready to write: the exact bytes and headers the route sent. */
interface PreparedAnswer {
  body: Buffer;
  etag: string | undefined;
  cacheControl: string;
  route: string;
  expiresAtMs: number;
}

/** Express's ETag function (`app.get('etag fn')`), so an answer from here carries the tag Express would give it. */
export type EtagFunction = (body: Buffer, encoding?: BufferEncoding) => string;

/** Bounds of the prepared answers: the hot URLs, in at most about 32 MB. */
const MAX_ANSWERS = 2_000;
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * The answer to a cache hit, written before Nest routes the request. A hit through
 * Nest pays the router, the execution context, the interceptor's observables and
 * `res.send` (which serialises and hashes the body again): more than the whole bare
 * route. Here a hit is one map lookup of the raw URL and one write of stored bytes.
 *
 * It answers only what the cache would answer the same way: a plain GET (no
 * conditional headers, which Express's freshness check handles) of a URL whose
 * cached route has no guard, while the entry behind it is fresh. Entries are put
 * here by HttpCacheService when it answers a request with a stored or fresh 2xx,
 * keyed by the URL as sent (so a hit needs no key normalisation), and live at most
 * as long as that entry. Every other request goes on down the pipeline unchanged.
 * Installed by `configureApp` right after body parsing, where routing starts.
 */
@Injectable()
export class HttpCacheFastLane {
  private readonly answers = new LRUCache<string, PreparedAnswer>({
    max: MAX_ANSWERS,
    maxSize: MAX_BYTES,
    sizeCalculation: (answer) => Math.max(1, answer.body.length),
  });
  /** Unset until `configureApp` installs the middleware; nothing is prepared before. */
  private etagOf?: EtagFunction | false;

  constructor(
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {}

  /** The middleware; `etagOf` is Express's ETag function, false when ETags are off. */
  middleware(etagOf: EtagFunction | false): RequestHandler {
    this.etagOf = etagOf;
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' || req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) {
        return next();
      }
      const answer = this.answers.get(req.originalUrl);
      if (answer === undefined) return next();
      if (answer.expiresAtMs <= this.clock.nowMs()) {
        this.answers.delete(req.originalUrl);
        return next();
      }
      (req as Request & { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE] = answer.route;
      this.metrics.countCacheRequest(answer.route, true);
      res.statusCode = 200;
      res.setHeader('Cache-Control', answer.cacheControl);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', answer.body.length);
      if (answer.etag !== undefined) res.setHeader('ETag', answer.etag);
      res.end(answer.body);
    };
  }

  /** Keeps a 2xx JSON answer of `url` (as the client sent it, its body the cache entry's bytes) until `expiresAtMs`. */
  prepare(url: string, answer: { body: Buffer; cacheControl: string; route: string; expiresAtMs: number }): void {
    if (this.etagOf === undefined) return;
    const body = answer.body;
    this.answers.set(url, {
      body,
      etag: this.etagOf === false ? undefined : this.etagOf(body, 'utf8'),
      cacheControl: answer.cacheControl,
      route: answer.route,
      expiresAtMs: answer.expiresAtMs,
    });
  }

  /** Forgets every prepared answer (the cache was cleared or an entry evicted). */
  clear(): void {
    this.answers.clear();
  }
}

/**
 * The global guards and interceptors (APP_GUARD, APP_INTERCEPTOR providers) of the
 * application, by token and module. The fast lane answers before Nest routes a request,
 * so it would skip them on every cached URL: `configureApp` refuses to start with any.
 * Nest registers each under the token `APP_GUARD (UUID: …)` (checked with @nestjs/core 11;
 * the unit test fails if that changes).
 */
export function enhancersTheFastLaneWouldSkip(modules: ModulesContainer): string[] {
  const found: string[] = [];
  for (const module of modules.values()) {
    for (const token of [...module.providers.keys(), ...module.injectables.keys()]) {
      const kind = typeof token === 'string' ? /^(APP_GUARD|APP_INTERCEPTOR) \(/.exec(token)?.[1] : undefined;
      if (kind) found.push(`${kind} in ${module.metatype?.name ?? 'a module'}`);
    }
  }
  return found;
}
