import type { ConfigEnvironment } from '../config/environment';
import type { EnvReader } from '../config/env-reader';

export interface AdminConfig {
  /** The operator key of the admin routes. */
  adminKey?: string;
}

export function adminConfig(read: EnvReader, { production }: ConfigEnvironment): AdminConfig {
  const adminKey = read.optionalString('ADMIN_KEY');
  // A shared secret that guards operator access must not be guessable.
  if (production && adminKey !== undefined && adminKey.length < 32) read.fail('ADMIN_KEY', 'at least 32 characters long in production');
  return { adminKey };
}
