import { applyDecorators, type ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError } from '../common/errors/app-error';
import { sendsNoCredentials } from './bearer-token';
import type { AuthenticatedUser } from './jwt.strategy';
import { ApiErrors } from '../common/http/api-errors';

/**
 * Anonymous callers (no Authorization header) pass with no user; a caller who
 * sends one must send a valid bearer token: an invalid or expired token, or any
 * other header form, is 401, never silently anonymous.
 */
@Injectable()
export class OptionalJwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<TUser = AuthenticatedUser>(
    error: unknown,
    user: TUser | false,
    _info: unknown,
    context: ExecutionContext,
  ): TUser | null {
    if (error) throw error;
    if (user) return user;
    if (sendsNoCredentials(context.switchToHttp().getRequest<Request>().headers)) return null;
    throw new AppError('UNAUTHORIZED', 'The token is invalid or expired');
  }
}

/** The route serves everyone; a bearer token, when sent, identifies the caller. */
export function OptionalAuthentication(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(OptionalJwtAuthGuard),
    // `security: [{}, { jwt: [] }]`: no credentials, or a bearer token.
    ApiSecurity({}),
    ApiBearerAuth('jwt'),
    ApiErrors({ UNAUTHORIZED: 'a bearer token was sent but is invalid or expired' }),
  );
}
