import * as path from 'node:path';
import type { ConfigEnvironment } from '../config/environment';
import type { EnvReader } from '../config/env-reader';

export interface DatabaseConfig {
  /** Unset means: start the embedded PostgreSQL kept in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
}

export function databaseConfig(read: EnvReader, { production }: ConfigEnvironment): DatabaseConfig {
  if (production && read.raw('DATABASE_URL') === undefined) {
    // Production data must never land in a silent embedded cluster on the instance's disk.
    read.fail('DATABASE_URL', 'set in production (the embedded PostgreSQL is for local and dev only)');
  }
  return {
    databaseUrl: read.url('DATABASE_URL'),
    dataDir: path.resolve(read.string('DATA_DIR', './.data')),
  };
}
