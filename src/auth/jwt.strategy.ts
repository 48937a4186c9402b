import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-jwt';
import { AppError } from '../common/errors/app-error';
import { UsersRepository } from '../users/users.repository';
import { bearerTokenOf } from './bearer-token';
import { type ServiceTokenClaims, ServiceTokenService } from './service-token.service';

/** What an authenticated request carries as `req.user`. */
export interface AuthenticatedUser {
  userId: number;
}

/**
 * Reads the bearer token with `bearerTokenOf`, as the rate limiter does (passport-jwt
 * checks the signature, with the secret `ServiceTokenService.secretOf` picks), then checks expiry
 * against the service clock and that the user still exists: a withdrawn user's
 * tokens stop working at once.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    private readonly tokens: ServiceTokenService,
    private readonly users: UsersRepository,
  ) {
    super({
      jwtFromRequest: (req: Request) => bearerTokenOf(req.headers.authorization),
      // JWT_SECRET, or JWT_SECRET_PREVIOUS for a token it signed (a rotation in progress).
      secretOrKeyProvider: (_req: Request, rawToken: string, done: (error: null, secret: string) => void) =>
        done(null, tokens.secretOf(rawToken)),
      algorithms: ['HS256'],
      // Expiry is checked in validate() against the injectable clock.
      ignoreExpiration: true,
    });
  }

  async validate(claims: Partial<ServiceTokenClaims>): Promise<AuthenticatedUser> {
    const userId = this.tokens.userIdFromClaims(claims);
    if (userId === null) throw new AppError('UNAUTHORIZED', 'The token has expired or is malformed');
    if (!(await this.users.exists(userId))) throw new AppError('UNAUTHORIZED', 'The account of this token no longer exists');
    return { userId };
  }
}
