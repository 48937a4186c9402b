import { Logger } from '@nestjs/common';
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { AppError } from '../../common/errors/app-error';
import type { OidcProviderConfig } from '../auth.config';

/**
 * Verifies an OpenID Connect identity token against the provider's published
 * keys (JWKS, cached by jose), issuer and audience. The token's `sub` is the account.
 */
export class OidcIdTokenVerifier {
  private readonly logger: Logger;
  private readonly keys: JWTVerifyGetKey;

  constructor(
    readonly name: string,
    private readonly config: OidcProviderConfig,
    private readonly now: () => Date,
  ) {
    this.logger = new Logger(`OidcIdTokenVerifier:${name}`);
    this.keys = createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 });
  }

  get configured(): boolean {
    return this.config.audience !== undefined;
  }

  async subjectOf(idToken: string): Promise<string> {
    if (!this.configured) {
      throw new AppError('PROVIDER_NOT_CONFIGURED', `Sign-in with ${this.name} is not configured on this server`);
    }
    try {
      const { payload } = await jwtVerify(idToken, this.keys, {
        issuer: this.config.issuers,
        audience: this.config.audience,
        algorithms: ['RS256', 'ES256'],
        currentDate: this.now(),
      });
      if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) {
        throw new errors.JWTClaimValidationFailed('missing sub', payload, 'sub', 'missing');
      }
      return payload.sub;
    } catch (error) {
      if (this.isKeySourceFailure(error)) {
        this.logger.warn(`signing keys unavailable: ${String(error)}`);
        throw new AppError('PROVIDER_UNAVAILABLE', `The ${this.name} signing keys could not be fetched; try again later`);
      }
      throw new AppError('IDENTITY_REJECTED', 'The identity provider token is invalid or expired');
    }
  }

  /** Our inability to fetch the keys is not the provider rejecting the token. */
  private isKeySourceFailure(error: unknown): boolean {
    if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return true;
    // jose reports a non-200 key-set response as a generic error.
    if (error instanceof errors.JOSEError) return error.code === 'ERR_JOSE_GENERIC' && /Key Set/.test(error.message);
    // Anything that is not a JOSE error came from fetching the keys (network, DNS, TLS).
    return true;
  }
}
