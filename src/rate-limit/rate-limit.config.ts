import type { EnvReader } from '../config/env-reader';

export const RATE_LIMIT_STORES = ['postgres', 'memory'] as const;

/** Where the rate-limit buckets live. */
export interface RateLimitConfig {
  /** `postgres`: shared by every instance (default); `memory`: in this process, for a single instance. */
  rateLimitStore: (typeof RATE_LIMIT_STORES)[number];
}

export function rateLimitConfig(read: EnvReader): RateLimitConfig {
  return { rateLimitStore: read.oneOf('RATE_LIMIT_STORE', RATE_LIMIT_STORES, 'postgres') };
}
