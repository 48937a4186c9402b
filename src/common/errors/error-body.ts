import { STATUS_CODES } from 'node:http';
import { ApiProperty } from '@nestjs/swagger';
import type { Response } from 'express';
import { ERROR_STATUS, type ErrorCode } from './error-codes';
import type { ErrorExtras } from './app-error';

/** The error body of the runtime contract, for OpenAPI. */
export class ErrorBody {
  @ApiProperty({ example: 409 })
  statusCode: number;

  @ApiProperty({ example: 'Conflict' })
  error: string;

  @ApiProperty({ example: 'The analysis is not ready yet' })
  message: string;

  @ApiProperty({
    enum: Object.keys(ERROR_STATUS),
    enumName: 'ErrorCode',
    example: 'NOT_READY',
    description: 'What went wrong, for programs; each code always comes with the same HTTP status (the table in the API description)',
  })
  code: ErrorCode;
}

export function buildErrorBody(status: number, code: ErrorCode, message: string, extras: ErrorExtras = {}) {
  return { ...extras, statusCode: status, error: STATUS_CODES[status] ?? 'Error', message, code };
}

/** Where an error answer keeps its code for the access line (src/logging/request-logger.ts). */
const ERROR_CODE = Symbol('errorCode');

/** Remembers the code of the error answer `res` carries, for the access line. */
export function noteErrorCode(res: Response, code: ErrorCode): void {
  (res as Response & { [ERROR_CODE]?: ErrorCode })[ERROR_CODE] = code;
}

/** The code of the error answer `res` carried, if it carried one. */
export function errorCodeOf(res: Response): ErrorCode | undefined {
  return (res as Response & { [ERROR_CODE]?: ErrorCode })[ERROR_CODE];
}

/** Writes an error body directly, for middleware that answers before Nest routing. */
export function sendError(res: Response, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  noteErrorCode(res, code);
  res
    .status(status)
    .set(headers)
    .json(buildErrorBody(status, code, message));
}
