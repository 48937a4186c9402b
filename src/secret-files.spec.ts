import * as path from 'node:path';
import { loadConfig, readConfig } from './app-config';
import { ConfigError, EnvReader, SECRET_VARIABLES } from './config/env-reader';
import { temporaryFiles } from '../test/support/temporary-files';

/** The problems `loadConfig` reports for this environment; fails the test if it reports none. */
function problemsOf(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('loadConfig did not throw');
}

/** Every secret of the configuration may come from a file (`SECRET_VARIABLES`, src/config/env-reader.ts). */
describe('the secrets of the configuration, from files', () => {
  const { dir, file } = temporaryFiles('briefing-secret-files-');

  it('covers every variable the configuration reads whose name says it holds a secret', () => {
    const names = new Set<string>();
    for (const env of [{}, { APP_ENV: 'production' }]) {
      const read = new EnvReader(env);
      readConfig(read);
      for (const name of read.variablesRead) names.add(name);
    }
    const secretLooking = [...names].filter((name) =>
      /(SECRET|API_KEY|ADMIN_KEY|PRIVATE_KEY|TOKEN|PASSWORD|SERVICE_ACCOUNT)(_PREVIOUS)?$/.test(name),
    );
    expect(secretLooking.length).toBeGreaterThan(10);
    for (const name of secretLooking) expect(SECRET_VARIABLES).toContain(name);
    // Every secret is read, and so its file variable is too.
    for (const name of SECRET_VARIABLES) {
      expect(names).toContain(name);
      expect(names).toContain(`${name}_FILE`);
    }
  });

  it('fills the configuration from the files, as compose passes them', () => {
    const config = loadConfig({
      APP_ENV: 'production',
      DATABASE_URL: 'postgres://briefing@postgres:5432/briefing',
      DATABASE_PASSWORD_FILE: file('postgres_password', 'pg-password\n'),
      JWT_SECRET_FILE: file('jwt_secret', `${'j'.repeat(40)}\n`),
      ADMIN_KEY_FILE: file('admin_key', `${'a'.repeat(32)}\n`),
      METRICS_TOKEN_FILE: file('metrics_token', `${'m'.repeat(32)}\n`),
    });
    expect(config.databaseUrl).toBe('postgres://briefing:pg-password@postgres:5432/briefing');
    expect(config.jwt.secret).toBe('j'.repeat(40));
    expect(config.adminKey).toBe('a'.repeat(32));
    expect(config.metricsToken).toBe('m'.repeat(32));
  });

  it('reports a bad secret read from a file without echoing it, and a missing one only once', () => {
    const short = 'short-secret-from-a-file';
    const message = problemsOf({ JWT_SECRET_FILE: file('jwt_secret', short) });
    expect(message).toContain('JWT_SECRET must be at least 32 characters long');
    expect(message).not.toContain(short);

    const urlMessage = problemsOf({ DATABASE_URL_FILE: file('database_url', 'postgres//briefing:hunter2-from-file@db/briefing') });
    expect(urlMessage).toContain('DATABASE_URL must be an absolute http(s) or postgres URL');
    expect(urlMessage).not.toContain('hunter2-from-file');

    const missing = path.join(dir(), 'jwt_secret_missing');
    const production = problemsOf({ APP_ENV: 'production', DATABASE_URL: 'postgres://db/briefing', JWT_SECRET_FILE: missing });
    expect(production).toContain(`JWT_SECRET_FILE names a file that cannot be read: ${missing} (no such file)`);
    // Not also "JWT_SECRET must be set in production": the file is the problem.
    expect(production).not.toMatch(/JWT_SECRET must/);
  });
});
