import { type EnvReader, splitList } from '../config/env-reader';

/** The store subscriptions: products, both stores' verification, and the Android notifications' push. */
export interface SubscriptionsConfig {
  /** Store product id → tier it grants; the same ids on both stores. */
  products: Record<string, 'pro' | 'max'>;
  /**
   * Whether purchases the stores mark as sandbox (App Store sandbox, Play license testers)
   * grant a tier. `grant` by default: App Review and TestFlight buy in the sandbox against
   * the production app.
   */
  sandboxPurchases: 'grant' | 'refuse';
  googlePlay: {
    /** Android application id; unset: Android verification answers 503. */
    packageName?: string;
    /** Service-account JSON or a path to it, with access to the Play Developer API. */
    serviceAccount?: string;
    /** androidpublisher root URL (a loopback double in tests). */
    apiBaseUrl: string;
  };
  /** The iOS store; verification is on when bundle id, roots and API key are all set. */
  apple: {
    bundleId?: string;
    /** The app's Apple id; the verifier requires it in Production. */
    appAppleId?: number;
    environment: 'Production' | 'Sandbox';
    issuerId?: string;
    keyId?: string;
    /** The App Store Server API key (.p8): PEM text or a path to it. */
    privateKey?: string;
    /** Paths of the trusted root certificates (DER or PEM), e.g. Apple Root CA - G3. */
    rootCertificatePaths: string[];
    /** Certificate revocation (OCSP) checks of the signing chain. */
    onlineChecks: boolean;
    /** App Store Server API base URL; unset: Apple's URL of the environment. */
    apiBaseUrl?: string;
  };
  /** How POST /internal/store-b-notifications authenticates the Pub/Sub push. */
  pubsub: {
    /** Audience of the push OIDC token (as set on the push subscription). */
    audience?: string;
    /** Service account the push subscription signs its tokens as; required with the audience. */
    serviceAccountEmail?: string;
    /** Alternative to the OIDC token: a secret the push endpoint URL carries as `?token=`. */
    sharedSecret?: string;
    /** Google's OIDC signing certificates (PEM per key id). */
    certsUrl: string;
  };
}

export function subscriptionsConfig(read: EnvReader): SubscriptionsConfig {
  const pubsubAudience = read.optionalString('GOOGLE_PUBSUB_AUDIENCE');
  const pubsubEmail = read.optionalString('GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL');
  // An audience alone would accept a token of any Google service account.
  if (pubsubAudience !== undefined && pubsubEmail === undefined) {
    read.fail('GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL', "set together with GOOGLE_PUBSUB_AUDIENCE (the push subscription's service account)");
  }

  // Apple's verifier refuses to start in Production without the app's Apple id.
  if (
    read.raw('APPLE_BUNDLE_ID') !== undefined &&
    read.raw('APPLE_APP_APPLE_ID') === undefined &&
    (read.raw('APPLE_ENVIRONMENT') ?? 'Production') === 'Production'
  ) {
    read.fail('APPLE_APP_APPLE_ID', 'set with APPLE_BUNDLE_ID in the Production environment (the app id of App Store Connect)');
  }

  return {
    products: parseProducts(read, read.string('SUBSCRIPTION_PRODUCTS', 'service.pro.monthly=pro,service.max.monthly=max')),
    sandboxPurchases: read.oneOf('SANDBOX_PURCHASES', ['grant', 'refuse'] as const, 'grant'),
    googlePlay: {
      packageName: read.optionalString('GOOGLE_PLAY_PACKAGE_NAME'),
      serviceAccount: read.optionalString('GOOGLE_PLAY_SERVICE_ACCOUNT'),
      apiBaseUrl: read.url('GOOGLE_PLAY_API_BASE_URL', 'https://androidpublisher.googleapis.com/'),
    },
    apple: {
      bundleId: read.optionalString('APPLE_BUNDLE_ID'),
      appAppleId:
        read.raw('APPLE_APP_APPLE_ID') === undefined
          ? undefined
          : read.integer('APPLE_APP_APPLE_ID', 0, { min: 1, max: Number.MAX_SAFE_INTEGER }),
      environment: read.oneOf('APPLE_ENVIRONMENT', ['Production', 'Sandbox'] as const, 'Production'),
      issuerId: read.optionalString('APPLE_ISSUER_ID'),
      keyId: read.optionalString('APPLE_KEY_ID'),
      privateKey: read.optionalString('APPLE_PRIVATE_KEY'),
      rootCertificatePaths: read.list('APPLE_ROOT_CERTIFICATES', ''),
      onlineChecks: read.boolean('APPLE_ONLINE_CHECKS', true),
      apiBaseUrl: read.url('APPLE_API_BASE_URL'),
    },
    pubsub: {
      audience: pubsubAudience,
      serviceAccountEmail: pubsubEmail,
      sharedSecret: read.optionalString('GOOGLE_PUBSUB_SHARED_SECRET'),
      certsUrl: read.url('GOOGLE_OIDC_CERTS_URL', 'https://www.googleapis.com/oauth2/v1/certs'),
    },
  };
}

/** `product=tier` pairs, e.g. `service.pro.monthly=pro,service.max.monthly=max`. */
function parseProducts(read: EnvReader, value: string): Record<string, 'pro' | 'max'> {
  const products: Record<string, 'pro' | 'max'> = {};
  for (const pair of splitList(value)) {
    const match = /^([A-Za-z0-9._-]+)\s*=\s*(pro|max)$/.exec(pair);
    if (!match) {
      read.fail('SUBSCRIPTION_PRODUCTS', 'a comma-separated list of product=tier pairs with tier pro or max', pair);
      continue;
    }
    products[match[1]] = match[2] as 'pro' | 'max';
  }
  if (Object.keys(products).length === 0) read.fail('SUBSCRIPTION_PRODUCTS', 'at least one product=tier pair', value);
  return products;
}
