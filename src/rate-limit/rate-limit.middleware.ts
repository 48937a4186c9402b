import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler } from 'express';
import { bearerTokenOf } from '../auth/bearer-token';
import { ServiceTokenService } from '../auth/service-token.service';
import { sendError } from '../common/errors/error-body';
import type { HttpConfig } from '../common/http/http.config';
import { InjectConfig } from '../config/config.module';
import { type BucketRule, BucketStore } from './bucket-store';
import { clientIpOf } from './client-ip';

/** Mutating requests: 2 a second, bursts of 10, per user (or per IP when anonymous). */
export const GENERAL_LIMIT: BucketRule = { name: 'general', capacity: 10, refillPerSecond: 2 };
/** `/api/v1/auth/*`: 0.5 a second, bursts of 5, per client IP. */
export const AUTH_LIMIT: BucketRule = { name: 'auth', capacity: 5, refillPerSecond: 0.5 };

export const RATE_LIMIT_RULES = Symbol('RATE_LIMIT_RULES');
export interface RateLimitRules {
  general: BucketRule;
  auth: BucketRule;
}

/** Reading and other safe methods are never limited. */
const UNLIMITED_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The two outermost layers of the pipeline, as Express middleware so they run
 * before CORS, body parsing and routing. Over the limit: 429, an integer
 * `Retry-After` and the standard error body.
 *
 * The limiters decide first; the refusal itself is written by `answerRefusal`,
 * installed right after CORS, so a browser can read the 429 and its Retry-After.
 * Nothing else runs for a refused request.
 */
@Injectable()
export class RateLimitMiddleware {
  /** Requests refused by a limiter, with the seconds to wait, until `answerRefusal` answers them. */
  private readonly refusals = new WeakMap<Request, number>();

  constructor(
    private readonly store: BucketStore,
    private readonly tokens: ServiceTokenService,
    @InjectConfig() private readonly config: HttpConfig,
    @Inject(RATE_LIMIT_RULES) private readonly rules: RateLimitRules,
  ) {}

  readonly general: RequestHandler = (req, _res, next) => {
    if (UNLIMITED_METHODS.has(req.method)) return next();
    this.enforce(this.rules.general, this.generalKey(req), req, next);
  };

  readonly auth: RequestHandler = (req, _res, next) => {
    if (UNLIMITED_METHODS.has(req.method) || this.refusals.has(req) || !isAuthRoute(req.path)) return next();
    this.enforce(this.rules.auth, `ip:${this.clientIp(req)}`, req, next);
  };

  /** Answers a request a limiter refused with 429; lets every other request through. */
  readonly answerRefusal: RequestHandler = (req, res, next) => {
    const seconds = this.refusals.get(req);
    if (seconds === undefined) return next();
    sendError(res, 429, 'RATE_LIMITED', `Too many requests; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
  };

  /**
   * The user of a valid bearer token, else the client IP. The token is read by
   * `bearerTokenOf`, exactly as authentication reads it: a header that does not
   * authenticate cannot name a user here either (and is refused by JWT routes).
   */
  private generalKey(req: Request): string {
    const token = bearerTokenOf(req.headers.authorization);
    const userId = token === null ? null : this.tokens.userIdOf(token);
    if (userId !== null) return `user:${userId}`;
    return `ip:${this.clientIp(req)}`;
  }

  private clientIp(req: Request): string {
    return clientIpOf(req, this.config.trustedClientIpHeader, this.config.trustedProxyHops);
  }

  private enforce(rule: BucketRule, key: string, req: Request, next: NextFunction): void {
    this.store.take(key, rule).then(
      (decision) => {
        if (!decision.allowed) this.refusals.set(req, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
        next();
      },
      (error: unknown) => next(error),
    );
  }
}

/** `/api/v1/auth` and below, matched as Express routes them: letter case ignored, trailing slash allowed. */
const AUTH_ROUTE = /^\/api\/v1\/auth(?:\/|$)/i;

function isAuthRoute(path: string): boolean {
  return AUTH_ROUTE.test(path);
}
