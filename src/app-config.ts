import { adminConfig, type AdminConfig } from './admin/admin.config';
import { adsConfig, type AdMobConfig } from './ads/ads.config';
import { analysisConfig, type AnalysisConfig } from './analysis/analysis.config';
import { attestationConfig, type AttestationConfig } from './attestation/attestation.config';
import { firebaseConfig, type FirebaseConfig } from './attestation/firebase.config';
import { authConfig, type AuthConfig } from './auth/auth.config';
import { httpConfig, type HttpConfig } from './common/http/http.config';
import type { AppConfig } from './config/app-config';
import { EnvReader } from './config/env-reader';
import { APP_ENVS, type ConfigEnvironment } from './config/environment';
import { jobsConfig, type JobsConfig } from './jobs/jobs.config';
import { databaseConfig, type DatabaseConfig } from './database/database.config';
import { fleetConfig, type FleetConfig } from './fleet/fleet.config';
import { loggingConfig, type LoggingConfig } from './logging/logging.config';
import { metricsConfig, type MetricsConfig } from './metrics/metrics.config';
import { pushConfig, type PushConfig } from './push/push.config';
import { rateLimitConfig, type RateLimitConfig } from './rate-limit/rate-limit.config';
import { subscriptionsConfig, type SubscriptionsConfig } from './subscriptions/subscriptions.config';
import { dartConfig, type DartConfig } from './upstream/dart/dart.config';

declare module './config/app-config' {
  /**
   * The whole runtime configuration, read once from the environment at start.
   * Each feature declares and validates its own slice next to its code
   * (`<feature>.config.ts`); this is their composition.
   */
  interface AppConfig
    extends
      HttpConfig,
      DatabaseConfig,
      AuthConfig,
      AdminConfig,
      AttestationConfig,
      FirebaseConfig,
      PushConfig,
      RateLimitConfig,
      LoggingConfig,
      MetricsConfig {
    dart: DartConfig;
    ai: AnalysisConfig;
    jobs: JobsConfig;
    fleet: FleetConfig;
    admob: AdMobConfig;
    subscriptions: SubscriptionsConfig;
  }
}

export type { AppConfig };

/**
 * Validates the environment into an `AppConfig`. It reads nothing but `env` (and the secret
 * files its `*_FILE` variables name), so tests build configurations the same way the server does.
 * Throws `ConfigError` naming every bad variable.
 */
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const read = new EnvReader(env);
  const config = readConfig(read);
  read.assertValid();
  return config;
}

/**
 * Every feature's slice from one reader, which collects all problems for one report.
 * Does not throw: the caller asks the reader (`assertValid`, `variablesRead`).
 */
export function readConfig(read: EnvReader): AppConfig {
  const appEnv = read.oneOf('APP_ENV', APP_ENVS, 'local');
  const environment: ConfigEnvironment = { appEnv, production: appEnv === 'production' };
  return {
    appEnv,
    ...authConfig(read, environment),
    ...httpConfig(read, environment),
    ...adminConfig(read, environment),
    ...attestationConfig(read, environment),
    ...databaseConfig(read, environment),
    dart: dartConfig(read),
    ai: analysisConfig(read),
    // The jobs that make a deployment come alive default to on in production.
    jobs: jobsConfig(read, environment.production),
    fleet: fleetConfig(read),
    ...rateLimitConfig(read),
    ...firebaseConfig(read),
    ...pushConfig(read),
    admob: adsConfig(read),
    subscriptions: subscriptionsConfig(read),
    ...loggingConfig(read),
    ...metricsConfig(read, environment),
  };
}
