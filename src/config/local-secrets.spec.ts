import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AppEnv } from './environment';
import { ensureLocalSecrets } from './local-secrets';

/** The fields of the configuration ensureLocalSecrets reads, as loadConfig gives them for these variables, and one it does not. */
function configFor(env: Record<string, string | undefined>) {
  return {
    appEnv: (env.APP_ENV ?? 'local') as AppEnv,
    dataDir: env.DATA_DIR!,
    jwt: { secret: env.JWT_SECRET, expirationMs: 604_800_000 },
    adminKey: env.ADMIN_KEY,
    port: 3000,
  };
}

/** A configured admin key, so the JWT cases see only the JWT secret. */
const ADMIN_KEY = 'a'.repeat(40);

describe('ensureLocalSecrets', () => {
  let tmp: string;

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-secrets-'));
  });

  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('generates a secret into <dataDir>/jwt-secret with mode 0600 and logs one line', () => {
    // A data directory that does not exist yet is created.
    const dataDir = path.join(tmp, 'data');
    const config = configFor({ DATA_DIR: dataDir, ADMIN_KEY });
    const log = jest.fn<void, [string]>();

    const result = ensureLocalSecrets(config, log);

    const file = path.join(dataDir, 'jwt-secret');
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(result.jwt.secret).toBeDefined();
    expect(result.jwt.secret!.length).toBeGreaterThanOrEqual(32);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(result.jwt.secret);
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0][0]).toContain(file);
    expect(log.mock.calls[0][0]).not.toContain(result.jwt.secret!);
    // The input configuration is not mutated; the rest is carried over.
    expect(config.jwt.secret).toBeUndefined();
    expect(result.jwt.expirationMs).toBe(config.jwt.expirationMs);
    expect(result.port).toBe(config.port);
  });

  it('reuses the stored secret on the next call without logging again', () => {
    const config = configFor({ DATA_DIR: tmp, ADMIN_KEY });
    const first = ensureLocalSecrets(config, () => undefined);
    const log = jest.fn();

    const second = ensureLocalSecrets(config, log);

    expect(second.jwt.secret).toBe(first.jwt.secret);
    expect(log).not.toHaveBeenCalled();
  });

  it('generates a different secret for a different data directory', () => {
    const other = path.join(tmp, 'other');
    const a = ensureLocalSecrets(configFor({ DATA_DIR: tmp, ADMIN_KEY }), () => undefined);
    const b = ensureLocalSecrets(configFor({ DATA_DIR: other, ADMIN_KEY }), () => undefined);
    expect(a.jwt.secret).not.toBe(b.jwt.secret);
  });

  it('replaces an emptied or truncated secret file with a fresh secret', () => {
    fs.writeFileSync(path.join(tmp, 'jwt-secret'), 'short\n');
    const log = jest.fn();

    const result = ensureLocalSecrets(configFor({ DATA_DIR: tmp, ADMIN_KEY }), log);

    expect(result.jwt.secret!.length).toBeGreaterThanOrEqual(32);
    expect(fs.readFileSync(path.join(tmp, 'jwt-secret'), 'utf8').trim()).toBe(result.jwt.secret);
    expect(log).toHaveBeenCalledTimes(1);
  });

  it('leaves a configured secret untouched and writes nothing', () => {
    const secret = 's'.repeat(40);
    const config = configFor({ DATA_DIR: tmp, JWT_SECRET: secret, ADMIN_KEY });
    const log = jest.fn();

    const result = ensureLocalSecrets(config, log);

    expect(result).toBe(config);
    expect(result.jwt.secret).toBe(secret);
    expect(fs.existsSync(path.join(tmp, 'jwt-secret'))).toBe(false);
    expect(log).not.toHaveBeenCalled();
  });

  describe('the admin key', () => {
    const JWT_SECRET = 'j'.repeat(40);

    it('is generated in local into <dataDir>/admin-key with mode 0600, named by file in the log, never by value, and kept across starts', () => {
      const log = jest.fn<void, [string]>();
      const first = ensureLocalSecrets(configFor({ DATA_DIR: tmp, JWT_SECRET }), log);

      const file = path.join(tmp, 'admin-key');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(first.adminKey!.length).toBeGreaterThanOrEqual(32);
      expect(fs.readFileSync(file, 'utf8').trim()).toBe(first.adminKey);
      expect(log).toHaveBeenCalledTimes(1);
      expect(log.mock.calls[0][0]).toContain(file);
      expect(log.mock.calls[0][0]).not.toContain(first.adminKey!);

      const again = jest.fn();
      expect(ensureLocalSecrets(configFor({ DATA_DIR: tmp, JWT_SECRET }), again).adminKey).toBe(first.adminKey);
      expect(again).not.toHaveBeenCalled();
    });

    it('is not generated in dev or production: an unset ADMIN_KEY keeps the admin API off there', () => {
      for (const env of [
        { APP_ENV: 'dev', DATA_DIR: tmp, JWT_SECRET },
        { APP_ENV: 'production', DATA_DIR: tmp, JWT_SECRET, DATABASE_URL: 'postgres://db/briefing' },
      ]) {
        const config = configFor(env);
        expect(ensureLocalSecrets(config, () => undefined).adminKey).toBeUndefined();
      }
      expect(fs.existsSync(path.join(tmp, 'admin-key'))).toBe(false);
    });

    it('leaves a configured admin key as it is', () => {
      const config = configFor({ DATA_DIR: tmp, JWT_SECRET, ADMIN_KEY });
      expect(ensureLocalSecrets(config, () => undefined)).toBe(config);
      expect(fs.existsSync(path.join(tmp, 'admin-key'))).toBe(false);
    });
  });
});
