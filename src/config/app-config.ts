import * as path from 'node:path';
import { EnvReader } from './env-reader';

export const APP_ENVS = ['local', 'dev', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const AI_PROVIDERS = ['openai', 'anthropic', 'builtin'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

/** An OpenID Connect identity provider; it is enabled only when an audience is configured. */
export interface OidcProviderConfig {
  jwksUrl: string;
  issuers: string[];
  audience?: string;
}

/** The whole runtime configuration, read once from the environment at start. */
export interface AppConfig {
  port: number;
  appEnv: AppEnv;
  /** Unset means: start the embedded PostgreSQL kept in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  jwt: {
    /** Unset only in local/dev before `ensureLocalSecrets` generated one. */
    secret?: string;
    expirationMs: number;
  };
  adminKey?: string;
  webSecret?: string;
  deviceAttestation: 'enforce' | 'off';
  trustedClientIpHeader?: string;
  /** Proxies in front of the service that append to that header: the address taken is this many from the right. */
  trustedProxyHops: number;
  /** `'*'` allows any origin. */
  corsOrigins: '*' | string[];
  dart: {
    baseUrl: string;
    apiKey?: string;
    /** APP_ENV=local without DART_API_KEY: the bundled sandbox serves the disclosure system. */
    sandbox: boolean;
    /** Never more requests than this in any 60-second window. */
    requestsPerMinute: number;
    /** Never more requests than this in one KST day (the key's allowance is about 20,000). */
    requestsPerDay: number;
    /** Timeout of one upstream call. */
    timeoutMs: number;
    /** Attempts for statuses 020/800/900 and network failures, with exponential backoff from `retryBaseMs`. */
    maxAttempts: number;
    retryBaseMs: number;
    /** Days a stored company record is served before it is fetched again. */
    companyMaxAgeMs: number;
  };
  idp1: { userinfoUrl: string };
  idp2: OidcProviderConfig;
  idp3: OidcProviderConfig;
  ai: {
    provider: AiProvider;
    concurrency: number;
    /** Attempts per filing before it is UNAVAILABLE; retries back off exponentially from `retryBaseMs`. */
    maxAttempts: number;
    retryBaseMs: number;
    /** How long a claimed analysis stays with its worker before another may take it over. */
    leaseMs: number;
    openai: { baseUrl: string; apiKey?: string; model: string };
    anthropic: { baseUrl?: string; apiKey?: string; model: string };
  };
  jobs: {
    disclosureMonitorAutoStart: boolean;
    disclosureMonitorIntervalMs: number;
    analysisSchedulerAutoStart: boolean;
    stockSyncSchedulerEnabled: boolean;
  };
  firebaseServiceAccount?: string;
  /** New-filing push: how the dispatcher sends and retries (push itself is on when `firebaseServiceAccount` is set). */
  push: {
    /** sendEach batches (of up to 500 messages) in flight at once on each instance. */
    concurrency: number;
    /** Attempts per message before a transient failure is final; retries back off exponentially from `retryBaseMs`. */
    maxAttempts: number;
    retryBaseMs: number;
    /** How long a claimed batch stays with its sender; a batch still unanswered after that is never resent. */
    leaseMs: number;
  };
  /** The rewarded-ad network's server-side verification callback. */
  admob: {
    /** Where the ECDSA verifier keys are published (`{ keys: [{ keyId, pem, base64 }] }`). */
    verifierKeysUrl: string;
    /** Ad units whose rewards are granted; undefined: any ad unit. */
    adUnitIds?: string[];
  };
  subscriptions: {
    /** Store product id → tier it grants; the same ids on both stores. */
    products: Record<string, 'pro' | 'max'>;
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
  };
  logLevel: LogLevel;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Validates the environment into an `AppConfig`. Pure: it reads nothing but `env`,
 * so tests build configurations the same way the server does.
 * Throws `ConfigError` naming every bad variable.
 */
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const read = new EnvReader(env);
  const appEnv = read.oneOf('APP_ENV', APP_ENVS, 'local');
  const production = appEnv === 'production';

  const jwtSecret = read.optionalString('JWT_SECRET');
  if (production && jwtSecret === undefined) {
    read.fail('JWT_SECRET', 'set in production (a random string of at least 32 characters)');
  } else if (jwtSecret !== undefined && jwtSecret.length < 32) {
    // The value itself is never echoed: it is a secret.
    read.fail('JWT_SECRET', 'at least 32 characters long');
  }

  const corsRaw = read.string('CORS_ORIGINS', '*');
  const corsOrigins = corsRaw === '*' ? '*' : parseOrigins(read, corsRaw);

  const openaiKey = read.optionalString('OPENAI_API_KEY');
  const anthropicKey = read.optionalString('ANTHROPIC_API_KEY');
  const defaultAiProvider: AiProvider = openaiKey ? 'openai' : anthropicKey ? 'anthropic' : 'builtin';

  const dartApiKey = read.optionalString('DART_API_KEY');
  // Local development without a key runs against the bundled sandbox; the jobs that
  // make it come alive default to on there, as in production.
  const sandbox = appEnv === 'local' && dartApiKey === undefined;
  const jobsDefault = production || sandbox;

  const clientIpHeader = read.optionalString('TRUSTED_CLIENT_IP_HEADER');
  if (clientIpHeader !== undefined && !/^[A-Za-z0-9-]+$/.test(clientIpHeader)) {
    read.fail('TRUSTED_CLIENT_IP_HEADER', 'an HTTP header name such as X-Real-IP', clientIpHeader);
  }

  const adminKey = read.optionalString('ADMIN_KEY');
  const webSecret = read.optionalString('WEB_SECRET');
  if (production && read.raw('DATABASE_URL') === undefined) {
    // Production data must never land in a silent embedded cluster on the instance's disk.
    read.fail('DATABASE_URL', 'set in production (the embedded PostgreSQL is for local and dev only)');
  }
  if (production) {
    // Shared secrets that guard operator and worker access must not be guessable.
    if (adminKey !== undefined && adminKey.length < 32) read.fail('ADMIN_KEY', 'at least 32 characters long in production');
    if (webSecret !== undefined && webSecret.length < 32) read.fail('WEB_SECRET', 'at least 32 characters long in production');
  }

  const pubsubAudience = read.optionalString('GOOGLE_PUBSUB_AUDIENCE');
  const pubsubEmail = read.optionalString('GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL');
  // An audience alone would accept a token of any Google service account.
  if (pubsubAudience !== undefined && pubsubEmail === undefined) {
    read.fail('GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL', 'set together with GOOGLE_PUBSUB_AUDIENCE (the push subscription\'s service account)');
  }

  // Apple's verifier refuses to start in Production without the app's Apple id.
  if (
    read.raw('APPLE_BUNDLE_ID') !== undefined &&
    read.raw('APPLE_APP_APPLE_ID') === undefined &&
    (read.raw('APPLE_ENVIRONMENT') ?? 'Production') === 'Production'
  ) {
    read.fail('APPLE_APP_APPLE_ID', 'set with APPLE_BUNDLE_ID in the Production environment (the app id of App Store Connect)');
  }

  const config: AppConfig = {
    port: read.integer('PORT', 3000, { min: 0, max: 65535 }),
    appEnv,
    databaseUrl: read.url('DATABASE_URL'),
    dataDir: path.resolve(read.string('DATA_DIR', './.data')),
    jwt: {
      secret: jwtSecret,
      expirationMs: read.integer('JWT_EXPIRATION_MS', 7 * DAY_MS, { min: 1000, max: 366 * DAY_MS }),
    },
    adminKey,
    webSecret,
    deviceAttestation: read.oneOf('DEVICE_ATTESTATION', ['enforce', 'off'] as const, production ? 'enforce' : 'off'),
    trustedClientIpHeader: clientIpHeader?.toLowerCase(),
    trustedProxyHops: read.integer('TRUSTED_PROXY_HOPS', 1, { min: 1, max: 20 }),
    corsOrigins,
    dart: {
      baseUrl: read.url('DART_API_BASE_URL', 'https://opendart.fss.or.kr/api'),
      apiKey: dartApiKey,
      sandbox,
      // The budget protects a real key; the sandbox is our own server.
      requestsPerMinute: read.integer('DART_REQUESTS_PER_MINUTE', sandbox ? 100_000 : 600, { min: 1, max: 1_000_000 }),
      requestsPerDay: read.integer('DART_REQUESTS_PER_DAY', 20_000, { min: 1, max: 100_000_000 }),
      timeoutMs: read.integer('DART_TIMEOUT_MS', 20_000, { min: 100, max: 300_000 }),
      maxAttempts: read.integer('DART_MAX_ATTEMPTS', 4, { min: 1, max: 10 }),
      retryBaseMs: read.integer('DART_RETRY_BASE_MS', 2_000, { min: 1, max: 600_000 }),
      companyMaxAgeMs: read.integer('COMPANY_MAX_AGE_MS', 7 * DAY_MS, { min: 1000, max: 365 * DAY_MS }),
    },
    idp1: { userinfoUrl: read.url('IDP1_USERINFO_URL', 'https://kapi.kakao.com/v2/user/me') },
    idp2: {
      jwksUrl: read.url('IDP2_JWKS_URL', 'https://appleid.apple.com/auth/keys'),
      issuers: splitList(read.string('IDP2_ISSUER', 'https://appleid.apple.com')),
      audience: read.optionalString('IDP2_AUDIENCE'),
    },
    idp3: {
      jwksUrl: read.url('IDP3_JWKS_URL', 'https://www.googleapis.com/oauth2/v3/certs'),
      // Google signs with either spelling of its issuer.
      issuers: splitList(read.string('IDP3_ISSUER', 'https://accounts.google.com,accounts.google.com')),
      audience: read.optionalString('IDP3_AUDIENCE'),
    },
    ai: {
      provider: read.oneOf('AI_PROVIDER', AI_PROVIDERS, defaultAiProvider),
      concurrency: read.integer('ANALYSIS_CONCURRENCY', 2, { min: 1, max: 64 }),
      maxAttempts: read.integer('ANALYSIS_MAX_ATTEMPTS', 5, { min: 1, max: 20 }),
      retryBaseMs: read.integer('ANALYSIS_RETRY_BASE_MS', 30_000, { min: 1, max: DAY_MS }),
      leaseMs: read.integer('ANALYSIS_LEASE_MS', 10 * 60_000, { min: 1000, max: DAY_MS }),
      openai: {
        baseUrl: read.url('OPENAI_BASE_URL', 'https://api.openai.com/v1'),
        apiKey: openaiKey,
        model: read.string('OPENAI_MODEL', 'gpt-4.1-mini'),
      },
      anthropic: {
        baseUrl: read.url('ANTHROPIC_BASE_URL'),
        apiKey: anthropicKey,
        model: read.string('ANTHROPIC_MODEL', 'claude-haiku-4-5'),
      },
    },
    jobs: {
      disclosureMonitorAutoStart: read.boolean('DISCLOSURE_MONITOR_AUTO_START', jobsDefault),
      disclosureMonitorIntervalMs: read.integer('DISCLOSURE_MONITOR_INTERVAL_MS', 60_000, { min: 1000, max: DAY_MS }),
      analysisSchedulerAutoStart: read.boolean('ANALYSIS_SCHEDULER_AUTO_START', jobsDefault),
      stockSyncSchedulerEnabled: read.boolean('STOCK_SYNC_SCHEDULER_ENABLED', production),
    },
    firebaseServiceAccount: read.optionalString('FIREBASE_SERVICE_ACCOUNT'),
    push: {
      concurrency: read.integer('PUSH_CONCURRENCY', 4, { min: 1, max: 32 }),
      maxAttempts: read.integer('PUSH_MAX_ATTEMPTS', 5, { min: 1, max: 20 }),
      retryBaseMs: read.integer('PUSH_RETRY_BASE_MS', 10_000, { min: 1, max: 60 * 60_000 }),
      leaseMs: read.integer('PUSH_LEASE_MS', 5 * 60_000, { min: 1000, max: DAY_MS }),
    },
    admob: {
      verifierKeysUrl: read.url('ADMOB_VERIFIER_KEYS_URL', 'https://www.gstatic.com/admob/reward/verifier-keys.json'),
      adUnitIds: parseAdUnitIds(read, read.optionalString('ADMOB_AD_UNIT_IDS')),
    },
    subscriptions: {
      products: parseProducts(read, read.string('SUBSCRIPTION_PRODUCTS', 'service.pro.monthly=pro,service.max.monthly=max')),
      googlePlay: {
        packageName: read.optionalString('GOOGLE_PLAY_PACKAGE_NAME'),
        serviceAccount: read.optionalString('GOOGLE_PLAY_SERVICE_ACCOUNT'),
        apiBaseUrl: read.url('GOOGLE_PLAY_API_BASE_URL', 'https://androidpublisher.googleapis.com/'),
      },
      apple: {
        bundleId: read.optionalString('APPLE_BUNDLE_ID'),
        appAppleId: read.raw('APPLE_APP_APPLE_ID') === undefined ? undefined : read.integer('APPLE_APP_APPLE_ID', 0, { min: 1, max: Number.MAX_SAFE_INTEGER }),
        environment: read.oneOf('APPLE_ENVIRONMENT', ['Production', 'Sandbox'] as const, 'Production'),
        issuerId: read.optionalString('APPLE_ISSUER_ID'),
        keyId: read.optionalString('APPLE_KEY_ID'),
        privateKey: read.optionalString('APPLE_PRIVATE_KEY'),
        rootCertificatePaths: splitList(read.string('APPLE_ROOT_CERTIFICATES', '')),
        onlineChecks: read.boolean('APPLE_ONLINE_CHECKS', true),
        apiBaseUrl: read.url('APPLE_API_BASE_URL'),
      },
      pubsub: {
        audience: pubsubAudience,
        serviceAccountEmail: pubsubEmail,
        sharedSecret: read.optionalString('GOOGLE_PUBSUB_SHARED_SECRET'),
        certsUrl: read.url('GOOGLE_OIDC_CERTS_URL', 'https://www.googleapis.com/oauth2/v1/certs'),
      },
    },
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
  };

  read.assertValid();
  return config;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * A comma list of ad unit ids, either the numeric id the callback carries
 * (`5224354917`) or the full id the apps use (`ca-app-pub-3940256099942544/5224354917`).
 */
function parseAdUnitIds(read: EnvReader, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const ids = splitList(value);
  const bad = ids.filter((id) => !/^(ca-app-pub-\d+\/)?\d{1,30}$/.test(id));
  for (const id of bad) {
    read.fail('ADMOB_AD_UNIT_IDS', 'a comma-separated list of ad unit ids such as ca-app-pub-123/456 or 456', id);
  }
  return ids.length > 0 ? ids : undefined;
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

function parseOrigins(read: EnvReader, value: string): string[] {
  const origins = splitList(value);
  for (const origin of origins) {
    try {
      const parsed = new URL(origin);
      if (parsed.origin !== origin.replace(/\/$/, '')) throw new Error('not an origin');
    } catch {
      read.fail('CORS_ORIGINS', '* or a comma-separated list of origins such as https://example.com', origin);
    }
  }
  return origins.map((origin) => origin.replace(/\/$/, ''));
}
