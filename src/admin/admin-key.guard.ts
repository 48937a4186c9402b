import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError } from '../common/errors/app-error';
import { secretsEqual } from '../common/secrets-equal';
import { InjectConfig } from '../config/config.module';
import type { AdminConfig } from './admin.config';
import { ApiErrors } from '../common/http/api-errors';

/**
 * Operator routes: `X-Admin-Key` must equal ADMIN_KEY (compared by `secretsEqual`,
 * so neither content nor length leaks through timing). While ADMIN_KEY is unset
 * every call is refused. JWTs play no part.
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(@InjectConfig() private readonly config: AdminConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const presented = context.switchToHttp().getRequest<Request>().headers['x-admin-key'];
    const expected = this.config.adminKey;
    if (expected === undefined) {
      throw new AppError('UNAUTHORIZED', 'Admin access is disabled: ADMIN_KEY is not configured');
    }
    if (typeof presented !== 'string' || !secretsEqual(presented, expected)) {
      throw new AppError('UNAUTHORIZED', 'A valid X-Admin-Key header is required');
    }
    return true;
  }
}

/** The route is for operators: sets the guard and the OpenAPI security together. */
export function AdminOnly(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(AdminKeyGuard),
    ApiSecurity('admin-key'),
    ApiErrors({ UNAUTHORIZED: 'X-Admin-Key missing or wrong, or ADMIN_KEY unset (the admin API is off)' }),
  );
}
