import { applyDecorators, createParamDecorator, ExecutionContext, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { ErrorBody } from '../common/errors/error-body';
import { JwtAuthGuard } from './jwt-auth.guard';
import type { AuthenticatedUser } from './jwt.strategy';

/** The route needs a signed-in user: sets the guard and the OpenAPI security together. */
export function Authenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(JwtAuthGuard),
    ApiBearerAuth('jwt'),
    ApiUnauthorizedResponse({ type: ErrorBody, description: 'Missing, invalid or expired token' }),
  );
}

/** The signed-in user of an `@Authenticated()` route. */
export const CurrentUser = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedUser => {
  return context.switchToHttp().getRequest<Request & { user: AuthenticatedUser }>().user;
});
