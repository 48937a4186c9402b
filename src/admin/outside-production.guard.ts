import { applyDecorators, CanActivate, ExecutionContext, Injectable, NotFoundException, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import type { EnvironmentConfig } from '../config/environment';
import { InjectConfig } from '../config/config.module';
import { AdminOnly } from './admin-key.guard';
import { ApiErrors } from '../common/http/api-errors';

/**
 * Routes for trying the service (recorded pushes, a tier set by hand): in production
 * they do not exist, and answer exactly as an unknown route does, before any key check.
 */
@Injectable()
export class OutsideProductionGuard implements CanActivate {
  constructor(@InjectConfig() private readonly config: EnvironmentConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.config.appEnv !== 'production') return true;
    const req = context.switchToHttp().getRequest<Request>();
    // Nest's own answer to an unknown route, word for word.
    throw new NotFoundException(`Cannot ${req.method} ${req.originalUrl}`);
  }
}

/** An operator route of local and dev only: 404 in production, then the admin key. */
export function AdminOnlyOutsideProduction(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    // Guards run in the order they are added: the 404 comes before the key's 401.
    UseGuards(OutsideProductionGuard),
    AdminOnly(),
    ApiErrors({ NOT_FOUND: 'in production: the route does not exist there' }),
  );
}
