import { HttpException } from '@nestjs/common';
import { AppError, type ErrorExtras } from '../common/errors/app-error';
import { ERROR_STATUS, type ErrorCode } from '../common/errors/error-codes';
import type { StoredFailure } from './http-cache-store';

/**
 * The failures whose answer is fully described by the exception: an `AppError` or a
 * Nest `HttpException` (404, 400, validation, upstream 503...). Anything else is an
 * unexpected fault, whose answer only the exception filter knows (500, or what it maps
 * a database failure to): that one is stored from the filter's answer, see
 * `failureFromErrorAnswer`.
 */
export function toStoredFailure(error: unknown): StoredFailure | undefined {
  if (error instanceof AppError) {
    return {
      type: 'app-error',
      code: error.code,
      message: error.message,
      extras: { ...error.extras },
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    };
  }
  if (error instanceof HttpException) {
    return { type: 'http-exception', status: error.getStatus(), response: error.getResponse(), message: error.message };
  }
  return undefined;
}

/** An exception that the exception filter turns into the same answer as the original. */
export function reviveFailure(failure: StoredFailure): Error {
  if (failure.type === 'app-error') {
    return new AppError(failure.code, failure.message, failure.extras, failure.retryAfterSeconds);
  }
  const revived = new HttpException(failure.response, failure.status);
  // The filter falls back to `message` when the response object has none.
  revived.message = failure.message;
  return revived;
}

/**
 * The error body the exception filter sent for an unexpected fault, as a failure that
 * revives into the same answer: the filter's sanitised body, so no stack trace or
 * internal detail can reach the cache. Undefined when the body is not the filter's
 * (its code does not give back its status), so nothing else is ever replayed.
 */
export function failureFromErrorAnswer(status: number, body: unknown, retryAfter: unknown): StoredFailure | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { statusCode, error: _reason, message, code, ...extras } = body as Record<string, unknown>;
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_STATUS, code)) return undefined;
  if (ERROR_STATUS[code as ErrorCode] !== status || statusCode !== status || typeof message !== 'string') return undefined;
  if (!Object.values(extras).every(isExtraValue)) return undefined;
  const retryAfterSeconds = Number(retryAfter);
  return {
    type: 'app-error',
    code: code as ErrorCode,
    message,
    extras: extras as ErrorExtras,
    ...(retryAfter !== undefined && Number.isInteger(retryAfterSeconds) ? { retryAfterSeconds } : {}),
  };
}

function isExtraValue(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}
