import * as path from 'node:path';
import type { ConfigEnvironment } from '../config/environment';
import type { EnvReader } from '../config/env-reader';

export interface DatabaseConfig {
  /** Unset means: start the embedded PostgreSQL kept in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  /**
   * Apply pending migrations at start (under the migration lock). False where a pre-deploy step
   * applies them (`node dist/src/migrate-main.js`, docs/kubernetes.md): a start then refuses a
   * database that lacks one of this version's migrations, and never changes the schema itself.
   */
  migrationsAtStart: boolean;
}

export function databaseConfig(read: EnvReader, { production }: ConfigEnvironment): DatabaseConfig {
  if (production && read.raw('DATABASE_URL') === undefined) {
    // Production data must never land in a silent embedded cluster on the instance's disk.
    read.fail('DATABASE_URL', 'set in production (the embedded PostgreSQL is for local and dev only)');
  }
  return {
    databaseUrl: withPassword(read, read.url('DATABASE_URL')),
    dataDir: path.resolve(read.string('DATA_DIR', './.data')),
    migrationsAtStart: read.boolean('MIGRATIONS_AT_START', true),
  };
}

/**
 * DATABASE_PASSWORD put into DATABASE_URL: the URL can then sit in plain configuration and the
 * password in a secret file (DATABASE_PASSWORD_FILE), the one the PostgreSQL container reads too.
 */
function withPassword(read: EnvReader, url: string | undefined): string | undefined {
  const password = read.raw('DATABASE_PASSWORD');
  if (password === undefined || url === undefined) {
    if (password !== undefined && read.raw('DATABASE_URL') === undefined) {
      read.fail('DATABASE_PASSWORD', 'set only with DATABASE_URL (the embedded PostgreSQL has a password of its own)');
    }
    return url;
  }
  const parsed = new URL(url);
  if (parsed.password !== '') {
    read.fail('DATABASE_URL', 'a URL without a password when DATABASE_PASSWORD is set (only one of them may hold it)');
    return url;
  }
  // Percent-encoded, as a password in a URL must be; the driver decodes it.
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}
