import { HttpException } from '@nestjs/common';
import { AppError } from '../errors/app-error';
import type { StoredFailure } from './http-cache-store';

/**
 * The failures whose answer is fully described by the exception: an `AppError` or a
 * Nest `HttpException` (404, 400, validation, upstream 503...). Anything else is an
 * unexpected fault (a bug); it is not cached, so the next request tries again.
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
