import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppError } from '../common/errors/app-error';
import { ErrorBody } from '../common/errors/error-body';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';

/**
 * Operator routes: `X-Admin-Key` must equal ADMIN_KEY. Both sides are hashed
 * before the constant-time comparison so neither content nor length leaks
 * through timing. While ADMIN_KEY is unset every call is refused. JWTs play no part.
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(@InjectConfig() config: AppConfig) {
    this.expected = config.adminKey === undefined ? undefined : digest(config.adminKey);
  }

  canActivate(context: ExecutionContext): boolean {
    const presented = context.switchToHttp().getRequest<Request>().headers['x-admin-key'];
    if (this.expected === undefined) {
      throw new AppError('UNAUTHORIZED', 'Admin access is disabled: ADMIN_KEY is not configured');
    }
    if (typeof presented !== 'string' || !timingSafeEqual(digest(presented), this.expected)) {
      throw new AppError('UNAUTHORIZED', 'A valid X-Admin-Key header is required');
    }
    return true;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The route is for operators: sets the guard and the OpenAPI security together. */
export function AdminOnly(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(AdminKeyGuard),
    ApiSecurity('admin-key'),
    ApiUnauthorizedResponse({ type: ErrorBody, description: 'Missing or wrong X-Admin-Key, or ADMIN_KEY unset' }),
  );
}
