import { HttpStatus } from '@nestjs/common';

/**
 * Every error code the API answers with, mapped to its HTTP status in this one place.
 * Features add their codes here; the `satisfies` clause makes the compiler check the map.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: HttpStatus.BAD_REQUEST,
  VALIDATION_FAILED: HttpStatus.BAD_REQUEST,
  MALFORMED_JSON: HttpStatus.BAD_REQUEST,
  WITHDRAW_NOT_CONFIRMED: HttpStatus.BAD_REQUEST,
  BACKFILL_RUNNING: HttpStatus.BAD_REQUEST,
  AD_CALLBACK_INVALID: HttpStatus.BAD_REQUEST,
  AD_CALLBACK_EXPIRED: HttpStatus.BAD_REQUEST,
  AD_UNIT_NOT_ALLOWED: HttpStatus.BAD_REQUEST,
  AD_USER_UNKNOWN: HttpStatus.BAD_REQUEST,
  UNKNOWN_STOCK: HttpStatus.BAD_REQUEST,
  UNAUTHORIZED: HttpStatus.UNAUTHORIZED,
  IDENTITY_REJECTED: HttpStatus.UNAUTHORIZED,
  SUBSCRIPTION_INVALID: HttpStatus.PAYMENT_REQUIRED,
  FORBIDDEN: HttpStatus.FORBIDDEN,
  ATTESTATION_REQUIRED: HttpStatus.FORBIDDEN,
  ATTESTATION_FAILED: HttpStatus.FORBIDDEN,
  AD_SIGNATURE_INVALID: HttpStatus.FORBIDDEN,
  NOT_FOUND: HttpStatus.NOT_FOUND,
  COMPANY_NOT_FOUND: HttpStatus.NOT_FOUND,
  WATCH_ENTRY_NOT_FOUND: HttpStatus.NOT_FOUND,
  METHOD_NOT_ALLOWED: HttpStatus.METHOD_NOT_ALLOWED,
  CONFLICT: HttpStatus.CONFLICT,
  STOCK_SYNC_RUNNING: HttpStatus.CONFLICT,
  NOT_READY: HttpStatus.CONFLICT,
  WATCHLIST_FULL: HttpStatus.CONFLICT,
  UNKNOWN_PRODUCT: HttpStatus.CONFLICT,
  PAYLOAD_TOO_LARGE: HttpStatus.PAYLOAD_TOO_LARGE,
  /** The request's path and query are longer than MAX_URL_LENGTH (src/common/http/url-length.ts). */
  URI_TOO_LONG: HttpStatus.URI_TOO_LONG,
  UNSUPPORTED_MEDIA_TYPE: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  RATE_LIMITED: HttpStatus.TOO_MANY_REQUESTS,
  QUOTA_EXHAUSTED: HttpStatus.TOO_MANY_REQUESTS,
  INTERNAL_ERROR: HttpStatus.INTERNAL_SERVER_ERROR,
  UPSTREAM_FAILED: HttpStatus.INTERNAL_SERVER_ERROR,
  PROVIDER_NOT_CONFIGURED: HttpStatus.SERVICE_UNAVAILABLE,
  PROVIDER_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
  /** The identity provider could not say who the caller is (outage, 429, timeout): not the caller's fault. */
  IDENTITY_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
  SERVICE_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
  UPSTREAM_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
  /** The disclosure-system budget has no slot for this request soon enough (sent with Retry-After). */
  UPSTREAM_BUSY: HttpStatus.SERVICE_UNAVAILABLE,
  /** PostgreSQL cannot be reached or did not answer in time (sent with Retry-After). */
  DATABASE_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
  AD_VERIFIER_KEYS_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
  STORE_NOT_CONFIGURED: HttpStatus.SERVICE_UNAVAILABLE,
  STORE_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
} as const satisfies Record<string, HttpStatus>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The code used when an error carries only an HTTP status (framework errors, 404 routes). */
export function defaultCodeFor(status: number): ErrorCode {
  switch (status) {
    case HttpStatus.BAD_REQUEST:
      return 'BAD_REQUEST';
    case HttpStatus.UNAUTHORIZED:
      return 'UNAUTHORIZED';
    case HttpStatus.FORBIDDEN:
      return 'FORBIDDEN';
    case HttpStatus.NOT_FOUND:
      return 'NOT_FOUND';
    case HttpStatus.METHOD_NOT_ALLOWED:
      return 'METHOD_NOT_ALLOWED';
    case HttpStatus.CONFLICT:
      return 'CONFLICT';
    case HttpStatus.PAYLOAD_TOO_LARGE:
      return 'PAYLOAD_TOO_LARGE';
    case HttpStatus.URI_TOO_LONG:
      return 'URI_TOO_LONG';
    case HttpStatus.UNSUPPORTED_MEDIA_TYPE:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case HttpStatus.TOO_MANY_REQUESTS:
      return 'RATE_LIMITED';
    case HttpStatus.SERVICE_UNAVAILABLE:
      return 'SERVICE_UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST';
  }
}

/**
 * A typical message of each code, for the examples of the OpenAPI document. The
 * `satisfies` clause makes the compiler ask for one whenever a code is added.
 */
export const ERROR_EXAMPLE_MESSAGES = {
  BAD_REQUEST: 'The request is not valid',
  VALIDATION_FAILED: 'rceptNo must be 14 digits',
  MALFORMED_JSON: 'The request body is not valid JSON',
  WITHDRAW_NOT_CONFIRMED: 'Send X-Confirm-Withdraw: yes to delete the account',
  BACKFILL_RUNNING: 'A backfill is already running',
  AD_CALLBACK_INVALID: 'The callback query is malformed',
  AD_CALLBACK_EXPIRED: 'The reward is more than an hour old',
  AD_UNIT_NOT_ALLOWED: 'The ad unit is not one of ADMOB_AD_UNIT_IDS',
  AD_USER_UNKNOWN: 'No user 42',
  UNKNOWN_STOCK: 'corp_code 00126380 is not in the stock master',
  UNAUTHORIZED: 'A valid bearer token is required',
  IDENTITY_REJECTED: 'The identity provider rejected the access token',
  SUBSCRIPTION_INVALID: 'The store does not know this purchase',
  FORBIDDEN: 'Forbidden',
  ATTESTATION_REQUIRED: 'Device attestation is required',
  ATTESTATION_FAILED: 'The device attestation was not accepted',
  AD_SIGNATURE_INVALID: 'The callback signature did not verify',
  NOT_FOUND: 'No filing 20261124000123',
  COMPANY_NOT_FOUND: 'No company 00126380',
  WATCH_ENTRY_NOT_FOUND: '00126380 is not on the watchlist',
  METHOD_NOT_ALLOWED: 'Method Not Allowed',
  CONFLICT: 'Conflict',
  STOCK_SYNC_RUNNING: 'A stock sync is already running',
  NOT_READY: 'The analysis is not ready yet',
  WATCHLIST_FULL: 'The watchlist holds 3 companies at most on this tier',
  UNKNOWN_PRODUCT: 'The product is not sold here',
  PAYLOAD_TOO_LARGE: 'The request body is larger than 256 kB',
  URI_TOO_LONG: 'The request URL is longer than 4096 characters',
  UNSUPPORTED_MEDIA_TYPE: 'The request body encoding is not supported',
  RATE_LIMITED: 'Too many requests; retry after the time in Retry-After',
  QUOTA_EXHAUSTED: 'The weekly quota is used up',
  INTERNAL_ERROR: 'Internal server error',
  UPSTREAM_FAILED: 'The disclosure system call failed',
  PROVIDER_NOT_CONFIGURED: 'This sign-in provider is not configured',
  PROVIDER_UNAVAILABLE: "The provider's signing keys are unreachable",
  IDENTITY_UNAVAILABLE: 'The identity provider could not be asked; try again later',
  SERVICE_UNAVAILABLE: 'The service is unavailable',
  UPSTREAM_UNAVAILABLE: 'The disclosure system is unavailable',
  UPSTREAM_BUSY: 'The disclosure-system budget has no slot soon enough',
  DATABASE_UNAVAILABLE: 'The database is unavailable',
  AD_VERIFIER_KEYS_UNAVAILABLE: "The ad network's verifier keys are unavailable",
  STORE_NOT_CONFIGURED: 'This store is not configured',
  STORE_UNAVAILABLE: 'The store could not be reached',
} as const satisfies Record<ErrorCode, string>;
