import { applyDecorators, createParamDecorator, ExecutionContext, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { JwtAuthGuard } from './jwt-auth.guard';
import type { AuthenticatedUser } from './jwt.strategy';
import { ApiErrors } from '../common/http/api-errors';

/** The route needs a signed-in user: sets the guard and the OpenAPI security together. */
export function Authenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(JwtAuthGuard),
    ApiBearerAuth('jwt'),
    ApiErrors({ UNAUTHORIZED: 'the bearer token is missing, invalid or expired, or its account no longer exists' }),
  );
}

/** The signed-in user of an `@Authenticated()` route. */
export const CurrentUser = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedUser => {
  return context.switchToHttp().getRequest<Request & { user: AuthenticatedUser }>().user;
});
