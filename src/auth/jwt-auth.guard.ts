import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AppError } from '../common/errors/app-error';
import type { AuthenticatedUser } from './jwt.strategy';

/** Requires a valid service JWT in `Authorization: Bearer`; 401 otherwise. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<TUser = AuthenticatedUser>(error: unknown, user: TUser | false, info: unknown): TUser {
    if (error) throw error;
    if (!user) {
      const missing = info instanceof Error && info.message === 'No auth token';
      throw new AppError(
        'UNAUTHORIZED',
        missing ? 'Sign-in required: send Authorization: Bearer <token>' : 'The token is invalid or expired',
      );
    }
    return user;
  }
}
