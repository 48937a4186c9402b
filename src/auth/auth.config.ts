import type { ConfigEnvironment } from '../config/environment';
import { DAY_MS, type EnvReader } from '../config/env-reader';

/** An OpenID Connect identity provider; it is enabled only when an audience is configured. */
export interface OidcProviderConfig {
  jwksUrl: string;
  issuers: string[];
  audience?: string;
}

/** The service's own tokens and the identity providers that sign callers in. */
export interface AuthConfig {
  jwt: {
    /** Unset only in local/dev before `ensureLocalSecrets` generated one. */
    secret?: string;
    /** The secret before the last rotation: its tokens still verify until they expire; nothing is signed with it. */
    previousSecret?: string;
    expirationMs: number;
  };
  idp1: { userinfoUrl: string };
  idp2: OidcProviderConfig;
  idp3: OidcProviderConfig;
}

export function authConfig(read: EnvReader, { production }: ConfigEnvironment): AuthConfig {
  const jwtSecret = read.optionalString('JWT_SECRET');
  if (production && jwtSecret === undefined) {
    read.fail('JWT_SECRET', 'set in production (a random string of at least 32 characters)');
  } else if (jwtSecret !== undefined && jwtSecret.length < 32) {
    // The value itself is never echoed: it is a secret.
    read.fail('JWT_SECRET', 'at least 32 characters long');
  }
  const previousSecret = read.optionalString('JWT_SECRET_PREVIOUS');
  if (previousSecret !== undefined && previousSecret.length < 32) read.fail('JWT_SECRET_PREVIOUS', 'at least 32 characters long');
  return {
    jwt: {
      secret: jwtSecret,
      previousSecret,
      expirationMs: read.integer('JWT_EXPIRATION_MS', 7 * DAY_MS, { min: 1000, max: 366 * DAY_MS }),
    },
    idp1: { userinfoUrl: read.url('IDP1_USERINFO_URL', 'https://kapi.kakao.com/v2/user/me') },
    idp2: {
      jwksUrl: read.url('IDP2_JWKS_URL', 'https://appleid.apple.com/auth/keys'),
      issuers: read.list('IDP2_ISSUER', 'https://appleid.apple.com'),
      audience: read.optionalString('IDP2_AUDIENCE'),
    },
    idp3: {
      jwksUrl: read.url('IDP3_JWKS_URL', 'https://www.googleapis.com/oauth2/v3/certs'),
      // Google signs with either spelling of its issuer.
      issuers: read.list('IDP3_ISSUER', 'https://accounts.google.com,accounts.google.com'),
      audience: read.optionalString('IDP3_AUDIENCE'),
    },
  };
}
