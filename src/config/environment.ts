export const APP_ENVS = ['local', 'dev', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

/** What every feature's slice may depend on when it is read: which kind of deployment this is. */
export interface ConfigEnvironment {
  appEnv: AppEnv;
  production: boolean;
}

/** The part of the configuration that names the deployment (`APP_ENV`), for features that behave differently outside production. */
export interface EnvironmentConfig {
  appEnv: AppEnv;
}
