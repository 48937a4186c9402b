import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EnvironmentConfig } from './environment';

/** The fields of the configuration these secrets fill (AuthConfig's `jwt`, AdminConfig, DatabaseConfig's `dataDir`). */
export interface LocalSecretsConfig extends EnvironmentConfig {
  dataDir: string;
  jwt: { secret?: string };
  adminKey?: string;
}

/**
 * Outside production a missing secret is generated once and kept in DATA_DIR, so
 * `npm start` works with no setup and what it issued survives restarts:
 * - the JWT signing secret, in local and dev (production refuses to start without JWT_SECRET);
 * - the admin key, in local only, so a newcomer can call the admin API (in dev and
 *   production an unset ADMIN_KEY keeps the admin API off).
 * The log names the file, never the secret.
 */
export function ensureLocalSecrets<C extends LocalSecretsConfig>(config: C, log: (line: string) => void): C {
  let result = config;
  if (!result.jwt.secret) {
    const secret = storedSecret(result.dataDir, 'jwt-secret', (file) =>
      log(`JWT_SECRET is not set: generated a signing secret in ${file} (APP_ENV=${config.appEnv} only)`),
    );
    result = { ...result, jwt: { ...result.jwt, secret } };
  }
  if (!result.adminKey && result.appEnv === 'local') {
    const adminKey = storedSecret(result.dataDir, 'admin-key', (file) =>
      log(`ADMIN_KEY is not set: generated an admin key in ${file} (send it as X-Admin-Key; APP_ENV=local only)`),
    );
    result = { ...result, adminKey };
  }
  return result;
}

/** The secret kept in DATA_DIR/<name>; a missing, emptied or truncated file gets a fresh one (mode 0600). */
function storedSecret(dataDir: string, name: string, announce: (file: string) => void): string {
  const file = path.join(dataDir, name);
  let secret = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  if (secret.length < 32) {
    fs.mkdirSync(dataDir, { recursive: true });
    secret = randomBytes(48).toString('base64url');
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    announce(file);
  }
  return secret;
}
