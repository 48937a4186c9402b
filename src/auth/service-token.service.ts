import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { Clock } from '../common/clock';
import type { AuthConfig } from './auth.config';
import { InjectConfig } from '../config/config.module';

/** The largest `users.id`: the column is a PostgreSQL integer (int4). */
const MAX_USER_ID = 2_147_483_647;

/** Claims of the service JWT (HS256). */
export interface ServiceTokenClaims {
  /** The user id, as a decimal string. */
  sub: string;
  iat: number;
  exp: number;
}

/**
 * Issues and reads the service's own JWT. Expiry is judged against the injected
 * clock rather than the library's wall clock, so tests can move time. Tokens are
 * signed with JWT_SECRET only; during a rotation those signed with JWT_SECRET_PREVIOUS
 * still verify (here and in JwtStrategy, through `secretOf`) until they expire.
 */
@Injectable()
export class ServiceTokenService {
  constructor(
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: AuthConfig,
  ) {}

  issue(userId: number): string {
    const issuedAt = Math.floor(this.clock.nowMs() / 1000);
    const claims: ServiceTokenClaims = {
      sub: String(userId),
      iat: issuedAt,
      exp: issuedAt + Math.ceil(this.config.jwt.expirationMs / 1000),
    };
    return this.jwt.sign(claims);
  }

  /** The user id of a token whose signature is valid and which has not expired; else null. */
  userIdOf(token: string): number | null {
    for (const secret of this.acceptedSecrets()) {
      const claims = this.claimsSignedWith(token, secret);
      if (claims !== null) return this.userIdFromClaims(claims);
    }
    return null;
  }

  /**
   * The accepted secret that signed this token: the current one, or the previous one during a
   * rotation. The current one when neither did, so that the verification that follows fails.
   */
  secretOf(token: string): string {
    const [current, previous] = this.acceptedSecrets();
    if (previous === undefined || this.claimsSignedWith(token, current) !== null) return current;
    return this.claimsSignedWith(token, previous) !== null ? previous : current;
  }

  /** The current secret first (nearly every token), then the previous one while it is set. */
  private acceptedSecrets(): string[] {
    const { secret, previousSecret } = this.config.jwt;
    return previousSecret === undefined ? [secret!] : [secret!, previousSecret];
  }

  private claimsSignedWith(token: string, secret: string): Partial<ServiceTokenClaims> | null {
    try {
      return this.jwt.verify<ServiceTokenClaims>(token, { secret });
    } catch {
      return null;
    }
  }

  /**
   * The user id of already signature-checked claims, or null when expired or malformed.
   * An id that `users.id` (int4) cannot hold is malformed: no user can have it.
   */
  userIdFromClaims(claims: Partial<ServiceTokenClaims>): number | null {
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= this.clock.nowMs()) return null;
    if (typeof claims.sub !== 'string' || !/^[1-9]\d{0,9}$/.test(claims.sub)) return null;
    const userId = Number(claims.sub);
    return userId <= MAX_USER_ID ? userId : null;
  }
}
