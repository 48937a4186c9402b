import { ERROR_STATUS, type ErrorCode } from './error-codes';

/** Extra top-level fields some errors carry, as named by the specification. */
export type ErrorExtras = Record<string, string | number | boolean | null>;

/**
 * The error features throw. The exception filter turns it into the error body;
 * its message is shown to the client, so it must never hold internal detail.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: ErrorExtras = {},
    /** Seconds for a `Retry-After` header (rate limits). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}
