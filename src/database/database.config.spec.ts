import { ConfigError, EnvReader } from '../config/env-reader';
import { databaseConfig } from './database.config';

function configOf(env: Record<string, string | undefined>) {
  const read = new EnvReader(env);
  const config = databaseConfig(read, { appEnv: 'local', production: false });
  read.assertValid();
  return config;
}

function problemsOf(env: Record<string, string | undefined>): string {
  try {
    configOf(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('no problem reported');
}

describe('DATABASE_PASSWORD', () => {
  it('puts the password into a URL that has none, percent-encoded, keeping the rest of the URL', () => {
    const { databaseUrl } = configOf({
      DATABASE_URL: 'postgres://briefing@db:5432/briefing?sslmode=require',
      DATABASE_PASSWORD: 'p@ss:w/rd%1 ?#',
    });
    const url = new URL(databaseUrl!);
    expect(decodeURIComponent(url.password)).toBe('p@ss:w/rd%1 ?#');
    expect(url.username).toBe('briefing');
    expect(url.host).toBe('db:5432');
    expect(url.pathname).toBe('/briefing');
    expect(url.searchParams.get('sslmode')).toBe('require');
  });

  it('leaves DATABASE_URL as it is without one', () => {
    expect(configOf({ DATABASE_URL: 'postgres://briefing:pw@db/briefing' }).databaseUrl).toBe('postgres://briefing:pw@db/briefing');
  });

  it('refuses a URL that carries a password as well, and a password without a URL', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://briefing:old@db/briefing', DATABASE_PASSWORD: 'new' })).toContain(
      'DATABASE_URL must be a URL without a password when DATABASE_PASSWORD is set',
    );
    expect(problemsOf({ DATABASE_PASSWORD: 'pw' })).toContain('DATABASE_PASSWORD must be set only with DATABASE_URL');
  });
});
