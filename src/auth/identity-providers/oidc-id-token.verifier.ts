import { Logger } from '@nestjs/common';
import { createRemoteJWKSet, customFetch, errors, type FetchImplementation, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { AppError } from '../../common/errors/app-error';
import type { OidcProviderConfig } from '../auth.config';
import { PROVIDER_TIMEOUT_MS, whyNoAnswer } from './provider-outage';

/** The key set could not be had: the provider's outage, never the token's fault. */
class KeySetUnavailable extends Error {}

/**
 * Verifies an OpenID Connect identity token against the provider's published
 * keys (JWKS, cached by jose), issuer and audience. The token's `sub` is the account.
 * A token that fails verification is 401; keys that cannot be fetched are 503.
 */
export class OidcIdTokenVerifier {
  private readonly logger: Logger;
  private readonly keys: JWTVerifyGetKey;
  /** The key set as the log names it, e.g. `idp2 key set at appleid.apple.com`. */
  private readonly keySource: string;

  constructor(
    readonly name: string,
    private readonly config: OidcProviderConfig,
    private readonly now: () => Date,
  ) {
    this.logger = new Logger(`OidcIdTokenVerifier:${name}`);
    this.keySource = `${name} key set at ${new URL(config.jwksUrl).host}`;
    this.keys = createRemoteJWKSet(new URL(config.jwksUrl), {
      timeoutDuration: PROVIDER_TIMEOUT_MS,
      cooldownDuration: 30_000,
      [customFetch]: fetchKeySet,
    });
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
      // jose raises JWKSInvalid only for a fetched document that is not a key set.
      if (error instanceof KeySetUnavailable || error instanceof errors.JWKSInvalid) {
        // Our own account of the outage (`answered 503`, `is unreachable (ECONNREFUSED)`), and the error with its cause.
        const why = error instanceof KeySetUnavailable ? error.message : 'answered 200 with no key set';
        this.logger.warn({ err: error }, `${this.keySource} ${why}: sign-in refused with PROVIDER_UNAVAILABLE`);
        throw new AppError('PROVIDER_UNAVAILABLE', `The ${this.name} signing keys could not be fetched; try again later`);
      }
      // A token the client got wrong: the check that failed is the whole story, and the error is not logged,
      // as it carries the token's claims (jose's `payload`). jose's messages name the check, never the
      // token's content; other messages may quote it, so only their name is kept.
      const check = error instanceof errors.JOSEError ? `${error.code}: ${error.message}` : (error as Error).name;
      this.logger.warn(`${this.name} identity token did not verify (${check}): sign-in refused with IDENTITY_REJECTED`);
      throw new AppError('IDENTITY_REJECTED', 'The identity provider token is invalid or expired');
    }
  }
}

/**
 * jose's fetch of the key set, with every way it can fail marked as the key set being
 * unavailable, so no failure of ours is mistaken for a bad token (or the reverse).
 */
const fetchKeySet: FetchImplementation = async (url, options) => {
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, options);
    // Read here, under jose's timeout signal, so a stalled or broken body is an outage too.
    body = await response.text();
  } catch (error) {
    throw new KeySetUnavailable(whyNoAnswer(error), { cause: error });
  }
  if (response.status !== 200) throw new KeySetUnavailable(`answered ${response.status}`);
  try {
    JSON.parse(body);
  } catch {
    throw new KeySetUnavailable('answered 200 with a body that is not JSON');
  }
  return new Response(body, { status: 200 });
};
