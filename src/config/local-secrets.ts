import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AppConfig } from './app-config';

/**
 * In local and dev a missing secret is generated once and kept in DATA_DIR, so
 * `npm start` works with no setup and issued tokens survive restarts.
 * Production refuses to start without JWT_SECRET (see loadConfig).
 */
export function ensureLocalSecrets(config: AppConfig, log: (line: string) => void): AppConfig {
  if (config.jwt.secret) return config;
  const file = path.join(config.dataDir, 'jwt-secret');
  let secret = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  // A missing, emptied or truncated file gets a fresh secret.
  if (secret.length < 32) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    secret = randomBytes(48).toString('base64url');
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    log(`JWT_SECRET is not set: generated a signing secret in ${file} (APP_ENV=${config.appEnv} only)`);
  }
  return { ...config, jwt: { ...config.jwt, secret } };
}
