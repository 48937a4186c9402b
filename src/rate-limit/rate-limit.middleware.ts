import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ServiceTokenService } from '../auth/service-token.service';
import { sendError } from '../common/errors/error-body';
import type { AppConfig } from '../config/app-config';
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
 */
@Injectable()
export class RateLimitMiddleware {
  constructor(
    private readonly store: BucketStore,
    private readonly tokens: ServiceTokenService,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(RATE_LIMIT_RULES) private readonly rules: RateLimitRules,
  ) {}

  readonly general: RequestHandler = (req, res, next) => {
    if (UNLIMITED_METHODS.has(req.method)) return next();
    this.enforce(this.rules.general, this.generalKey(req), res, next);
  };

  readonly auth: RequestHandler = (req, res, next) => {
    if (UNLIMITED_METHODS.has(req.method) || !isAuthRoute(req.path)) return next();
    this.enforce(this.rules.auth, `ip:${clientIpOf(req, this.config.trustedClientIpHeader)}`, res, next);
  };

  /** The user of a valid bearer token, else the client IP. */
  private generalKey(req: Request): string {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const userId = bearer === undefined ? null : this.tokens.userIdOf(bearer);
    if (userId !== null) return `user:${userId}`;
    return `ip:${clientIpOf(req, this.config.trustedClientIpHeader)}`;
  }

  private enforce(rule: BucketRule, key: string, res: Response, next: NextFunction): void {
    this.store.take(key, rule).then(
      (decision) => {
        if (decision.allowed) return next();
        const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
        sendError(res, 429, 'RATE_LIMITED', `Too many requests; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
      },
      (error: unknown) => next(error),
    );
  }
}

function isAuthRoute(path: string): boolean {
  return path === '/api/v1/auth' || path.startsWith('/api/v1/auth/');
}
