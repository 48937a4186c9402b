import { applyDecorators, Injectable, UseGuards } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AppError } from '../common/errors/app-error';
import { ErrorBody } from '../common/errors/error-body';
import type { AuthenticatedUser } from './jwt.strategy';

/**
 * Anonymous callers pass with no user; a caller who sends a token must send a
 * valid one: an invalid or expired token is 401, never silently anonymous.
 */
@Injectable()
export class OptionalJwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<TUser = AuthenticatedUser>(error: unknown, user: TUser | false, info: unknown): TUser | null {
    if (error) throw error;
    if (user) return user;
    if (info instanceof Error && info.message === 'No auth token') return null;
    throw new AppError('UNAUTHORIZED', 'The token is invalid or expired');
  }
}

/** The route serves everyone; a bearer token, when sent, identifies the caller. */
export function OptionalAuthentication(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(OptionalJwtAuthGuard),
    ApiBearerAuth('jwt'),
    ApiUnauthorizedResponse({ type: ErrorBody, description: 'A token was sent but is invalid or expired' }),
  );
}
