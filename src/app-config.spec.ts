import * as path from 'node:path';
import { loadConfig } from './app-config';
import { ConfigError, EnvReader } from './config/env-reader';
import { secretsOf } from './logging/redaction';

const SECRET = 'x'.repeat(32);
/** Production refuses to start without a database of its own. */
const DATABASE_URL = 'postgres://db.internal:5432/briefing';

/** Runs `loadConfig` and returns the ConfigError it throws; fails the test if it does not throw one. */
function configErrorOf(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('loadConfig did not throw');
}

describe('loadConfig', () => {
  describe('defaults with an empty environment', () => {
    const config = loadConfig({});

    it('listens on 3000 as a local environment', () => {
      expect(config.port).toBe(3000);
      expect(config.appEnv).toBe('local');
      expect(config.logLevel).toBe('info');
    });

    it('issues tokens for 7 days and has no secret yet', () => {
      expect(config.jwt.expirationMs).toBe(604_800_000);
      expect(config.jwt.secret).toBeUndefined();
    });

    it('runs no job and keeps the budget of a real disclosure key (npm start switches the jobs on for its sandbox)', () => {
      expect(config.deviceAttestation).toBe('off');
      expect(config.dart.requestsPerMinute).toBe(600);
      expect(config.dart.requestsPerDay).toBe(20_000);
      expect(config.jobs).toEqual({
        disclosureMonitorAutoStart: false,
        disclosureMonitorIntervalMs: 5_000,
        disclosureMonitorIdleIntervalMs: 60_000,
        analysisSchedulerAutoStart: false,
        stockSyncSchedulerEnabled: false,
        stockSyncBootstrap: false,
        progressLogMs: 10_000,
      });
    });

    it('turns every job switch off in local and dev with a real disclosure key', () => {
      for (const env of [{ DART_API_KEY: 'k' }, { APP_ENV: 'dev' }]) {
        const withKey = loadConfig(env);
        expect(withKey.dart.requestsPerMinute).toBe(600);
        expect(withKey.jobs).toEqual({
          disclosureMonitorAutoStart: false,
          disclosureMonitorIntervalMs: 5_000,
          disclosureMonitorIdleIntervalMs: 60_000,
          analysisSchedulerAutoStart: false,
          stockSyncSchedulerEnabled: false,
          stockSyncBootstrap: false,
          progressLogMs: 10_000,
        });
      }
    });

    it('allows any CORS origin and trusts no client IP header', () => {
      expect(config.corsOrigins).toBe('*');
      expect(config.trustedClientIpHeader).toBeUndefined();
    });

    it('uses the builtin AI provider with a concurrency of 2', () => {
      expect(config.ai.provider).toBe('builtin');
      expect(config.ai.concurrency).toBe(2);
    });

    it('points DART at the public API and keeps data in ./.data (absolute)', () => {
      expect(config.dart.baseUrl).toBe('https://opendart.fss.or.kr/api');
      expect(config.dart.apiKey).toBeUndefined();
      expect(config.databaseUrl).toBeUndefined();
      expect(config.dataDir).toBe(path.resolve('./.data'));
    });

    it('accepts both spellings of the Google issuer by default', () => {
      expect(config.idp3.issuers).toEqual(['https://accounts.google.com', 'accounts.google.com']);
      expect(config.idp3.audience).toBeUndefined();
    });
  });

  it('treats blank values as unset', () => {
    const config = loadConfig({ PORT: '   ', APP_ENV: '' });
    expect(config.port).toBe(3000);
    expect(config.appEnv).toBe('local');
  });

  it('enforces device attestation and starts every job in production', () => {
    const config = loadConfig({ APP_ENV: 'production', JWT_SECRET: SECRET, DATABASE_URL });
    expect(config.appEnv).toBe('production');
    expect(config.deviceAttestation).toBe('enforce');
    expect(config.jobs.disclosureMonitorAutoStart).toBe(true);
    expect(config.jobs.analysisSchedulerAutoStart).toBe(true);
    expect(config.jobs.stockSyncSchedulerEnabled).toBe(true);
    expect(config.jwt.secret).toBe(SECRET);
  });

  it('keeps production defaults overridable', () => {
    const config = loadConfig({
      APP_ENV: 'production',
      JWT_SECRET: SECRET,
      DATABASE_URL,
      DEVICE_ATTESTATION: 'off',
      STOCK_SYNC_SCHEDULER_ENABLED: 'false',
    });
    expect(config.deviceAttestation).toBe('off');
    expect(config.jobs.stockSyncSchedulerEnabled).toBe(false);
    expect(config.jobs.disclosureMonitorAutoStart).toBe(true);
  });

  describe('AI provider default', () => {
    it('is openai when OPENAI_API_KEY is set (even with an Anthropic key)', () => {
      const config = loadConfig({ OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-a' });
      expect(config.ai.provider).toBe('openai');
      expect(config.ai.openai.apiKey).toBe('sk-o');
    });

    it('is anthropic when only ANTHROPIC_API_KEY is set', () => {
      const config = loadConfig({ ANTHROPIC_API_KEY: 'sk-a' });
      expect(config.ai.provider).toBe('anthropic');
      expect(config.ai.anthropic.apiKey).toBe('sk-a');
    });

    it('follows an explicit AI_PROVIDER', () => {
      expect(loadConfig({ OPENAI_API_KEY: 'sk-o', AI_PROVIDER: 'builtin' }).ai.provider).toBe('builtin');
    });
  });

  it('reads explicit values', () => {
    const config = loadConfig({
      PORT: '8080',
      APP_ENV: 'dev',
      LOG_LEVEL: 'debug',
      ANALYSIS_CONCURRENCY: '5',
      DISCLOSURE_MONITOR_INTERVAL_MS: '5000',
      DART_API_BASE_URL: 'http://localhost:9000/api',
      DATABASE_URL: 'postgres://u:p@db:5432/app',
      DATA_DIR: '/tmp/briefing-data',
    });
    expect(config.port).toBe(8080);
    expect(config.appEnv).toBe('dev');
    expect(config.logLevel).toBe('debug');
    expect(config.ai.concurrency).toBe(5);
    expect(config.jobs.disclosureMonitorIntervalMs).toBe(5000);
    expect(config.dart.baseUrl).toBe('http://localhost:9000/api');
    expect(config.databaseUrl).toBe('postgres://u:p@db:5432/app');
    expect(config.dataDir).toBe('/tmp/briefing-data');
  });

  describe('booleans', () => {
    it.each([
      ['true', true],
      ['TRUE', true],
      ['1', true],
      ['yes', true],
      ['false', false],
      ['0', false],
      ['no', false],
      ['No', false],
    ])('%s reads as %s', (raw, expected) => {
      // Outside production the default is false and inside it is true, so both directions are visible.
      expect(loadConfig({ DISCLOSURE_MONITOR_AUTO_START: raw }).jobs.disclosureMonitorAutoStart).toBe(expected);
      expect(
        loadConfig({ APP_ENV: 'production', JWT_SECRET: SECRET, DATABASE_URL, DISCLOSURE_MONITOR_AUTO_START: raw }).jobs
          .disclosureMonitorAutoStart,
      ).toBe(expected);
    });

    it('rejects anything else, saying what it accepts', () => {
      const error = configErrorOf({ ANALYSIS_SCHEDULER_AUTO_START: 'sometimes' });
      expect(error.problems).toEqual(['ANALYSIS_SCHEDULER_AUTO_START must be true or false (got "sometimes")']);
    });
  });

  it('lower-cases TRUSTED_CLIENT_IP_HEADER', () => {
    expect(loadConfig({ TRUSTED_CLIENT_IP_HEADER: 'X-Real-IP' }).trustedClientIpHeader).toBe('x-real-ip');
  });

  it('splits CORS_ORIGINS and drops trailing slashes', () => {
    const config = loadConfig({ CORS_ORIGINS: 'https://a.example.com/, http://localhost:5173 ,,https://b.example.com' });
    expect(config.corsOrigins).toEqual(['https://a.example.com', 'http://localhost:5173', 'https://b.example.com']);
  });

  it('splits issuer lists', () => {
    const config = loadConfig({ IDP3_ISSUER: 'https://one.example , two.example', IDP3_AUDIENCE: 'client-id' });
    expect(config.idp3.issuers).toEqual(['https://one.example', 'two.example']);
    expect(config.idp3.audience).toBe('client-id');
  });

  describe('bad values', () => {
    it.each<[string, Record<string, string>, RegExp]>([
      ['PORT=abc', { PORT: 'abc' }, /^PORT must be an integer from 0 to 65535 \(got "abc"\)$/],
      ['PORT out of range', { PORT: '70000' }, /^PORT must be an integer from 0 to 65535/],
      ['APP_ENV=staging', { APP_ENV: 'staging' }, /^APP_ENV must be one of local, dev, production \(got "staging"\)$/],
      ['LOG_LEVEL=loud', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent \(got "loud"\)$/],
      ['DEVICE_ATTESTATION=maybe', { DEVICE_ATTESTATION: 'maybe' }, /^DEVICE_ATTESTATION must be one of enforce, off \(got "maybe"\)$/],
      ['ANALYSIS_CONCURRENCY=0', { ANALYSIS_CONCURRENCY: '0' }, /^ANALYSIS_CONCURRENCY must be an integer from 1 to 64 \(got "0"\)$/],
      [
        'DART_API_BASE_URL=not-a-url',
        { DART_API_BASE_URL: 'not-a-url' },
        /^DART_API_BASE_URL must be an absolute http\(s\) or postgres URL \(got "not-a-url"\)$/,
      ],
      [
        'DART_REQUESTS_PER_DAY=0',
        { DART_REQUESTS_PER_DAY: '0' },
        /^DART_REQUESTS_PER_DAY must be an integer from 1 to 100000000 \(got "0"\)$/,
      ],
      [
        'DART_API_BASE_URL with another scheme',
        { DART_API_BASE_URL: 'ftp://example.com/api' },
        /^DART_API_BASE_URL must be an absolute http\(s\) or postgres URL/,
      ],
      [
        'CORS_ORIGINS with a path',
        { CORS_ORIGINS: 'https://ok.example.com,https://example.com/app' },
        /^CORS_ORIGINS must be \* or a comma-separated list of origins .* \(got "https:\/\/example.com\/app"\)$/,
      ],
      [
        'TRUSTED_CLIENT_IP_HEADER with a space',
        { TRUSTED_CLIENT_IP_HEADER: 'X Real IP' },
        /^TRUSTED_CLIENT_IP_HEADER must be an HTTP header name such as X-Real-IP \(got "X Real IP"\)$/,
      ],
    ])('%s throws a ConfigError naming the variable and what it accepts', (_label, env, expected) => {
      const error = configErrorOf(env);
      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(expected);
      expect(error.message).toContain(error.problems[0]);
      expect(error.name).toBe('ConfigError');
    });

    it('reports every bad variable in one error', () => {
      const error = configErrorOf({
        PORT: 'abc',
        APP_ENV: 'staging',
        LOG_LEVEL: 'loud',
        ANALYSIS_CONCURRENCY: '0',
      });
      expect(error.problems).toHaveLength(4);
      for (const name of ['PORT', 'APP_ENV', 'LOG_LEVEL', 'ANALYSIS_CONCURRENCY']) {
        expect(error.problems.some((problem) => problem.startsWith(`${name} must be`))).toBe(true);
        expect(error.message).toContain(`${name} must be`);
      }
      expect(error.message.startsWith('Invalid configuration:')).toBe(true);
    });

    it('never echoes the credentials of a bad URL', () => {
      const error = configErrorOf({ DATABASE_URL: 'mysql://app:hunter2secret@db.internal/briefing' });
      expect(error.problems[0]).toMatch(/^DATABASE_URL must be an absolute http\(s\) or postgres URL/);
      expect(error.problems[0]).toContain('db.internal');
      expect(error.message).not.toContain('hunter2secret');
    });

    it('shortens very long values it echoes', () => {
      const error = configErrorOf({ LOG_LEVEL: 'z'.repeat(100) });
      expect(error.problems[0]).toContain(`(got "${'z'.repeat(57)}...")`);
      expect(error.problems[0]).not.toContain('z'.repeat(58));
    });
  });

  describe('push', () => {
    it("sends 4 batches at once, 5 attempts backing off from 10 s, under a 5-minute lease, within FCM's default quota by default", () => {
      expect(loadConfig({}).push).toEqual({
        concurrency: 4,
        maxAttempts: 5,
        retryBaseMs: 10_000,
        leaseMs: 300_000,
        summaryWaitMs: 90_000,
        expansionUsers: 5_000,
        messagesPerMinute: 600_000,
      });
    });

    it('reads explicit values', () => {
      const config = loadConfig({
        PUSH_CONCURRENCY: '1',
        PUSH_MAX_ATTEMPTS: '3',
        PUSH_RETRY_BASE_MS: '500',
        PUSH_LEASE_MS: '1000',
        PUSH_EXPANSION_USERS: '200',
        PUSH_MESSAGES_PER_MINUTE: '1200000',
      });
      expect(config.push).toEqual({
        concurrency: 1,
        maxAttempts: 3,
        retryBaseMs: 500,
        leaseMs: 1000,
        summaryWaitMs: 90_000,
        expansionUsers: 200,
        messagesPerMinute: 1_200_000,
      });
    });

    it('rejects values out of range, naming each variable', () => {
      const error = configErrorOf({
        PUSH_CONCURRENCY: '0',
        PUSH_MAX_ATTEMPTS: '21',
        PUSH_RETRY_BASE_MS: 'soon',
        PUSH_LEASE_MS: '999',
        PUSH_MESSAGES_PER_MINUTE: '999',
      });
      expect(error.problems).toEqual([
        'PUSH_CONCURRENCY must be an integer from 1 to 32 (got "0")',
        'PUSH_MAX_ATTEMPTS must be an integer from 1 to 20 (got "21")',
        'PUSH_RETRY_BASE_MS must be an integer from 1 to 3600000 (got "soon")',
        'PUSH_LEASE_MS must be an integer from 1000 to 86400000 (got "999")',
        'PUSH_MESSAGES_PER_MINUTE must be an integer from 1000 to 1000000000 (got "999")',
      ]);
    });
  });

  describe('rewarded-ad callback', () => {
    it('uses the published verifier keys and accepts any ad unit by default', () => {
      const config = loadConfig({});
      expect(config.admob).toEqual({
        verifierKeysUrl: 'https://www.gstatic.com/admob/reward/verifier-keys.json',
        adUnitIds: undefined,
      });
    });

    it('reads the keys URL and a comma list of ad unit ids, short or full', () => {
      const config = loadConfig({
        ADMOB_VERIFIER_KEYS_URL: 'http://127.0.0.1:8080/keys.json',
        ADMOB_AD_UNIT_IDS: ' 5224354917 , ca-app-pub-3940256099942544/1712485313,, ',
      });
      expect(config.admob.verifierKeysUrl).toBe('http://127.0.0.1:8080/keys.json');
      expect(config.admob.adUnitIds).toEqual(['5224354917', 'ca-app-pub-3940256099942544/1712485313']);
    });

    it('treats a list of only commas as unset', () => {
      expect(loadConfig({ ADMOB_AD_UNIT_IDS: ' , ,' }).admob.adUnitIds).toBeUndefined();
    });

    it('rejects a bad keys URL and every bad ad unit id, naming the variable', () => {
      const error = configErrorOf({
        ADMOB_VERIFIER_KEYS_URL: 'gstatic.com/keys',
        ADMOB_AD_UNIT_IDS: '123,ca-app-pub-1/abc,unit one',
      });
      expect(error.problems).toEqual([
        'ADMOB_VERIFIER_KEYS_URL must be an absolute http(s) or postgres URL (got "gstatic.com/keys")',
        'ADMOB_AD_UNIT_IDS must be a comma-separated list of ad unit ids such as ca-app-pub-123/456 or 456 (got "ca-app-pub-1/abc")',
        'ADMOB_AD_UNIT_IDS must be a comma-separated list of ad unit ids such as ca-app-pub-123/456 or 456 (got "unit one")',
      ]);
    });
  });

  describe('subscriptions', () => {
    it('maps the two specified products and leaves the Play store unconfigured by default', () => {
      const config = loadConfig({});
      expect(config.subscriptions).toEqual({
        products: { 'service.pro.monthly': 'pro', 'service.max.monthly': 'max' },
        sandboxPurchases: 'grant',
        googlePlay: { packageName: undefined, serviceAccount: undefined, apiBaseUrl: 'https://androidpublisher.googleapis.com/' },
        apple: {
          bundleId: undefined,
          appAppleId: undefined,
          environment: 'Production',
          issuerId: undefined,
          keyId: undefined,
          privateKey: undefined,
          rootCertificatePaths: [],
          onlineChecks: true,
          apiBaseUrl: undefined,
        },
        pubsub: {
          audience: undefined,
          serviceAccountEmail: undefined,
          sharedSecret: undefined,
          certsUrl: 'https://www.googleapis.com/oauth2/v1/certs',
        },
      });
    });

    it('reads a product map and the Play store variables', () => {
      const config = loadConfig({
        SUBSCRIPTION_PRODUCTS: ' a.pro = pro , b.max=max',
        GOOGLE_PLAY_PACKAGE_NAME: 'com.example.app',
        GOOGLE_PLAY_SERVICE_ACCOUNT: '/secrets/play.json',
        GOOGLE_PLAY_API_BASE_URL: 'http://127.0.0.1:9000/',
      });
      expect(config.subscriptions.products).toEqual({ 'a.pro': 'pro', 'b.max': 'max' });
      expect(config.subscriptions.googlePlay).toEqual({
        packageName: 'com.example.app',
        serviceAccount: '/secrets/play.json',
        apiBaseUrl: 'http://127.0.0.1:9000/',
      });
    });

    it('reads the Pub/Sub push authentication', () => {
      const config = loadConfig({
        GOOGLE_PUBSUB_AUDIENCE: 'https://api.example.com/internal/store-b-notifications',
        GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL: 'push@project.iam.gserviceaccount.com',
        GOOGLE_PUBSUB_SHARED_SECRET: 's3cret',
        GOOGLE_OIDC_CERTS_URL: 'http://127.0.0.1:9001/certs',
      });
      expect(config.subscriptions.pubsub).toEqual({
        audience: 'https://api.example.com/internal/store-b-notifications',
        serviceAccountEmail: 'push@project.iam.gserviceaccount.com',
        sharedSecret: 's3cret',
        certsUrl: 'http://127.0.0.1:9001/certs',
      });
    });

    it('reads the iOS store variables', () => {
      const config = loadConfig({
        APPLE_BUNDLE_ID: 'com.example.app',
        APPLE_APP_APPLE_ID: '1234567890',
        APPLE_ENVIRONMENT: 'Sandbox',
        APPLE_ISSUER_ID: '57246542-96fe-1a63-e053-0824d011072a',
        APPLE_KEY_ID: '2X9R4HXF34',
        APPLE_PRIVATE_KEY: '/secrets/SubscriptionKey.p8',
        APPLE_ROOT_CERTIFICATES: '/certs/AppleRootCA-G3.cer, /certs/AppleRootCA-G2.cer',
        APPLE_ONLINE_CHECKS: 'false',
        APPLE_API_BASE_URL: 'http://127.0.0.1:9002',
      });
      expect(config.subscriptions.apple).toEqual({
        bundleId: 'com.example.app',
        appAppleId: 1234567890,
        environment: 'Sandbox',
        issuerId: '57246542-96fe-1a63-e053-0824d011072a',
        keyId: '2X9R4HXF34',
        privateKey: '/secrets/SubscriptionKey.p8',
        rootCertificatePaths: ['/certs/AppleRootCA-G3.cer', '/certs/AppleRootCA-G2.cer'],
        onlineChecks: false,
        apiBaseUrl: 'http://127.0.0.1:9002',
      });
    });

    it('requires the app Apple id with a bundle id in Production', () => {
      expect(configErrorOf({ APPLE_BUNDLE_ID: 'com.example.app' }).problems).toEqual([
        'APPLE_APP_APPLE_ID must be set with APPLE_BUNDLE_ID in the Production environment (the app id of App Store Connect)',
      ]);
      expect(
        loadConfig({ APPLE_BUNDLE_ID: 'com.example.app', APPLE_ENVIRONMENT: 'Sandbox' }).subscriptions.apple.appAppleId,
      ).toBeUndefined();
    });

    it('rejects the Xcode and LocalTesting environments and a non-numeric app id', () => {
      expect(configErrorOf({ APPLE_ENVIRONMENT: 'Xcode' }).problems[0]).toMatch(/^APPLE_ENVIRONMENT must be /);
      expect(configErrorOf({ APPLE_ENVIRONMENT: 'LocalTesting' }).problems[0]).toMatch(/^APPLE_ENVIRONMENT must be /);
      expect(configErrorOf({ APPLE_APP_APPLE_ID: 'abc' }).problems[0]).toMatch(/^APPLE_APP_APPLE_ID must be /);
    });

    it('requires the service-account email with the Pub/Sub audience', () => {
      const error = configErrorOf({ GOOGLE_PUBSUB_AUDIENCE: 'https://api.example.com/x' });
      expect(error.problems).toEqual([
        "GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL must be set together with GOOGLE_PUBSUB_AUDIENCE (the push subscription's service account)",
      ]);
    });

    it('rejects a pair with an unknown tier or no tier, and a bad base URL', () => {
      const error = configErrorOf({ SUBSCRIPTION_PRODUCTS: 'a=pro,b=gold,c', GOOGLE_PLAY_API_BASE_URL: 'play' });
      expect(error.problems).toEqual([
        'SUBSCRIPTION_PRODUCTS must be a comma-separated list of product=tier pairs with tier pro or max (got "b=gold")',
        'SUBSCRIPTION_PRODUCTS must be a comma-separated list of product=tier pairs with tier pro or max (got "c")',
        'GOOGLE_PLAY_API_BASE_URL must be an absolute http(s) or postgres URL (got "play")',
      ]);
    });
  });

  describe('DATABASE_URL', () => {
    it('is required in production, so production data never lands in an embedded cluster', () => {
      const error = configErrorOf({ APP_ENV: 'production', JWT_SECRET: SECRET });
      expect(error.problems).toEqual(['DATABASE_URL must be set in production (the embedded PostgreSQL is for local and dev only)']);
    });

    it.each(['local', 'dev'])('is optional in %s (the embedded PostgreSQL)', (appEnv) => {
      expect(loadConfig({ APP_ENV: appEnv }).databaseUrl).toBeUndefined();
    });
  });

  describe('JWT_SECRET', () => {
    it('is required in production', () => {
      const error = configErrorOf({ APP_ENV: 'production', DATABASE_URL });
      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(/^JWT_SECRET must be set in production/);
    });

    it('is optional outside production', () => {
      expect(loadConfig({ APP_ENV: 'dev' }).jwt.secret).toBeUndefined();
    });

    it.each(['local', 'production'])('must be at least 32 characters (%s) and is never echoed', (appEnv) => {
      const secret = 'short-but-secret-value-31-chars'; // 31 characters
      expect(secret).toHaveLength(31);
      const error = configErrorOf({ APP_ENV: appEnv, JWT_SECRET: secret, DATABASE_URL });
      expect(error.problems).toEqual(['JWT_SECRET must be at least 32 characters long']);
      expect(error.message).not.toContain(secret);
      expect(JSON.stringify(error.problems)).not.toContain(secret);
    });

    it('accepts exactly 32 characters', () => {
      expect(loadConfig({ JWT_SECRET: SECRET }).jwt.secret).toBe(SECRET);
    });
  });

  describe.each(['ADMIN_KEY', 'WEB_SECRET', 'METRICS_TOKEN'])('%s', (name) => {
    const short = 'operator-secret-of-31-character';

    it('must be at least 32 characters in production, and is never echoed', () => {
      expect(short).toHaveLength(31);
      const error = configErrorOf({ APP_ENV: 'production', JWT_SECRET: SECRET, [name]: short });
      expect(error.problems).toContain(`${name} must be at least 32 characters long in production`);
      expect(error.message).not.toContain(short);
    });

    it('accepts 32 characters in production, and shorter values outside production', () => {
      // Other production requirements may fail alongside; none may name this variable.
      let problems: string[] = [];
      try {
        loadConfig({ APP_ENV: 'production', JWT_SECRET: SECRET, DATABASE_URL, [name]: SECRET });
      } catch (error) {
        problems = (error as ConfigError).problems;
      }
      expect(problems.filter((problem) => problem.startsWith(name))).toEqual([]);
      expect(() => loadConfig({ APP_ENV: 'dev', [name]: short })).not.toThrow();
    });
  });

  describe('TRUSTED_PROXY_HOPS', () => {
    it('is 1 by default: the right-most address of the trusted header', () => {
      expect(loadConfig({}).trustedProxyHops).toBe(1);
    });

    it('reads a hop count and rejects anything but an integer from 1 to 20', () => {
      expect(loadConfig({ TRUSTED_PROXY_HOPS: '2' }).trustedProxyHops).toBe(2);
      for (const bad of ['0', '-1', '21', 'two']) {
        expect(configErrorOf({ TRUSTED_PROXY_HOPS: bad }).problems).toEqual([
          `TRUSTED_PROXY_HOPS must be an integer from 1 to 20 (got "${bad}")`,
        ]);
      }
    });
  });
});

describe('EnvReader', () => {
  it('collects nothing and does not throw when every value is good', () => {
    const read = new EnvReader({ N: '7' });
    expect(read.integer('N', 1, { min: 0, max: 10 })).toBe(7);
    expect(() => read.assertValid()).not.toThrow();
  });

  it('returns the fallback for a bad value and reports it on assertValid', () => {
    const read = new EnvReader({ N: '1.5', B: 'on', U: 'postgresql://db/app' });
    expect(read.integer('N', 4, { min: 0, max: 10 })).toBe(4);
    expect(read.boolean('B', false)).toBe(true);
    expect(read.url('U')).toBe('postgresql://db/app');
    expect(() => read.assertValid()).toThrow(ConfigError);
  });
});

describe('the secrets of the configuration (secretsOf)', () => {
  it('finds every secret of the configuration, the database password and inline service-account keys', () => {
    const serviceAccount = JSON.stringify({
      client_email: 'a@b.c',
      private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
    });
    const config = loadConfig({
      JWT_SECRET: 'j'.repeat(32),
      ADMIN_KEY: 'admin-key-value',
      WEB_SECRET: 'web-secret-value',
      DART_API_KEY: 'dart-key-value',
      OPENAI_API_KEY: 'openai-key-value',
      ANTHROPIC_API_KEY: 'anthropic-key-value',
      GOOGLE_PUBSUB_SHARED_SECRET: 'pubsub-secret-value',
      FIREBASE_SERVICE_ACCOUNT: serviceAccount,
      DATABASE_URL: 'postgres://app:db%2Fpassword@db.example/app',
    });
    expect(secretsOf(config)).toEqual(
      expect.arrayContaining([
        'j'.repeat(32),
        'admin-key-value',
        'web-secret-value',
        'dart-key-value',
        'openai-key-value',
        'anthropic-key-value',
        'pubsub-secret-value',
        serviceAccount,
        '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
        'db/password',
      ]),
    );
    expect(secretsOf(config)).not.toContain('https://opendart.fss.or.kr/api');
  });
});
