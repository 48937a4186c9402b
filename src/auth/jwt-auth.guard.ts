import { type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { AppError } from '../common/errors/app-error';
import { sendsNoCredentials } from './bearer-token';
import type { AuthenticatedUser } from './jwt.strategy';

/** Requires a valid service JWT in `Authorization: Bearer <token>`; 401 otherwise, including any other header form. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<TUser = AuthenticatedUser>(error: unknown, user: TUser | false, _info: unknown, context: ExecutionContext): TUser {
    if (error) throw error;
    if (!user) {
      const missing = sendsNoCredentials(context.switchToHttp().getRequest<Request>().headers);
      throw new AppError(
        'UNAUTHORIZED',
        missing ? 'Sign-in required: send Authorization: Bearer <token>' : 'The token is invalid or expired',
      );
    }
    return user;
  }
}
