import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../database/database-errors';
import { AppError } from './app-error';
import { clientErrorOfDatabaseFailure } from './client-database-errors';
import { buildErrorBody, noteErrorCode } from './error-body';
import { defaultCodeFor, type ErrorCode } from './error-codes';

/** Errors raised by Express body parsing (body-parser attaches `type` and `status`). */
interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as BodyParserError).type === 'string' &&
    typeof (error as BodyParserError).status === 'number'
  );
}

interface ErrorAnswer {
  status: number;
  code: ErrorCode;
  message: string;
  extras?: Record<string, string | number | boolean | null>;
  headers?: Record<string, string>;
}

/**
 * The one place where failures become HTTP answers. Clients get the contract's
 * error body and never a stack trace, SQL text or path; the log keeps the detail.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    const answer = this.toAnswer(clientErrorOfDatabaseFailure(exception) ?? exception);

    if (answer.status >= 500) {
      this.logger.error({ err: exception, method: req.method, url: req.originalUrl }, `${req.method} ${req.originalUrl} failed`);
    }
    if (res.headersSent) return;
    noteErrorCode(res, answer.code);
    res
      .status(answer.status)
      .set(answer.headers ?? {})
      .json(buildErrorBody(answer.status, answer.code, answer.message, answer.extras));
  }

  private toAnswer(exception: unknown): ErrorAnswer {
    if (exception instanceof AppError) {
      return {
        status: exception.status,
        code: exception.code,
        message: exception.message,
        extras: exception.extras,
        headers: exception.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(exception.retryAfterSeconds) },
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      return { status, code: defaultCodeFor(status), message: httpExceptionMessage(exception) };
    }
    if (isBodyParserError(exception)) {
      if (exception.type === 'entity.parse.failed') {
        return { status: HttpStatus.BAD_REQUEST, code: 'MALFORMED_JSON', message: 'The request body is not valid JSON' };
      }
      if (exception.type === 'entity.too.large') {
        return { status: HttpStatus.PAYLOAD_TOO_LARGE, code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 256 kB' };
      }
      if (exception.status >= 400 && exception.status < 500) {
        return { status: exception.status, code: defaultCodeFor(exception.status), message: 'The request body could not be read' };
      }
    }
    if (isDatabaseUnavailable(exception)) {
      return {
        status: HttpStatus.SERVICE_UNAVAILABLE,
        code: 'DATABASE_UNAVAILABLE',
        message: 'The database is unavailable; try again shortly',
        headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
      };
    }
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, code: 'INTERNAL_ERROR', message: 'Internal server error' };
  }
}

/** Nest's own exceptions carry a string or `{ message: string | string[] }`. */
function httpExceptionMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return exception.message;
}
