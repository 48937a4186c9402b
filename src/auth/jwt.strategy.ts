import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-jwt';
import { AppError } from '../common/errors/app-error';
import type { AuthConfig } from './auth.config';
import { InjectConfig } from '../config/config.module';
import { UsersRepository } from '../users/users.repository';
import { bearerTokenOf } from './bearer-token';
import { type ServiceTokenClaims, ServiceTokenService } from './service-token.service';

/** What an authenticated request carries as `req.user`. */
export interface AuthenticatedUser {
  userId: number;
}

/**
 * Reads the bearer token with `bearerTokenOf`, as the rate limiter does (passport-jwt
 * checks the signature), then checks expiry
 * against the service clock and that the user still exists: a withdrawn user's
 * tokens stop working at once.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @InjectConfig() config: AuthConfig,
    private readonly tokens: ServiceTokenService,
    private readonly users: UsersRepository,
  ) {
    super({
      jwtFromRequest: (req: Request) => bearerTokenOf(req.headers.authorization),
      secretOrKey: config.jwt.secret!,
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
