import { DAY_MS, type EnvReader } from '../../config/env-reader';

export const DART_BUDGET_STORES = ['postgres', 'memory'] as const;

/** The disclosure system (DART): where it is, the key, the request budget and retries. */
export interface DartConfig {
  baseUrl: string;
  apiKey?: string;
  /** Where the request budget is kept: `postgres` shares it between every instance (default); `memory` is this process's, for a single instance. */
  budgetStore: (typeof DART_BUDGET_STORES)[number];
  /** Never more requests than this in any 60-second window. */
  requestsPerMinute: number;
  /** Never more requests than this in one KST day (the key's allowance is about 20,000). */
  requestsPerDay: number;
  /** Timeout of one upstream call. */
  timeoutMs: number;
  /** Attempts for statuses 020/800/900 and network failures, with exponential backoff from `retryBaseMs`. */
  maxAttempts: number;
  retryBaseMs: number;
  /**
   * The most a public read (a company page) waits for the disclosure system, budget and retries
   * included; then it answers 503 with Retry-After. The jobs keep the timeout and attempts above.
   */
  publicReadDeadlineMs: number;
  /** Days a stored company record is served before it is fetched again. */
  companyMaxAgeMs: number;
}

export function dartConfig(read: EnvReader): DartConfig {
  return {
    baseUrl: read.url('DART_API_BASE_URL', 'https://opendart.fss.or.kr/api'),
    apiKey: read.optionalString('DART_API_KEY'),
    budgetStore: read.oneOf('DART_BUDGET_STORE', DART_BUDGET_STORES, 'postgres'),
    requestsPerMinute: read.integer('DART_REQUESTS_PER_MINUTE', 600, { min: 1, max: 1_000_000 }),
    requestsPerDay: read.integer('DART_REQUESTS_PER_DAY', 20_000, { min: 1, max: 100_000_000 }),
    timeoutMs: read.integer('DART_TIMEOUT_MS', 20_000, { min: 100, max: 300_000 }),
    maxAttempts: read.integer('DART_MAX_ATTEMPTS', 4, { min: 1, max: 10 }),
    retryBaseMs: read.integer('DART_RETRY_BASE_MS', 2_000, { min: 1, max: 600_000 }),
    publicReadDeadlineMs: read.integer('DART_PUBLIC_READ_DEADLINE_MS', 5_000, { min: 100, max: 60_000 }),
    companyMaxAgeMs: read.integer('COMPANY_MAX_AGE_MS', 7 * DAY_MS, { min: 1000, max: 365 * DAY_MS }),
  };
}
