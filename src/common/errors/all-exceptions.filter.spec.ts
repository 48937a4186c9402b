import { ArgumentsHost, BadRequestException, Logger, NotFoundException } from '@nestjs/common';
import { QueryFailedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../database/database-errors';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { AppError } from './app-error';

/** A response double that records what the filter writes. */
class RecordingResponse {
  headersSent = false;
  statusCode?: number;
  headers: Record<string, string> = {};
  body?: unknown;
  writes = 0;

  status(code: number): this {
    this.writes++;
    this.statusCode = code;
    return this;
  }

  set(headers: Record<string, string>): this {
    this.writes++;
    Object.assign(this.headers, headers);
    return this;
  }

  json(body: unknown): this {
    this.writes++;
    this.body = body;
    return this;
  }
}

function hostFor(res: RecordingResponse): ArgumentsHost {
  const req = { method: 'GET', originalUrl: '/v1/things/1' };
  return {
    switchToHttp: () => ({
      getResponse: () => res,
      getRequest: () => req,
      getNext: () => undefined,
    }),
  } as unknown as ArgumentsHost;
}

function run(exception: unknown): RecordingResponse {
  const res = new RecordingResponse();
  new AllExceptionsFilter().catch(exception, hostFor(res));
  return res;
}

describe('AllExceptionsFilter', () => {
  let errorLog: jest.SpyInstance;

  beforeEach(() => {
    errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('answers an AppError with its status, the contract body and no log line', () => {
    const res = run(new AppError('NOT_FOUND', 'The company was not found'));

    expect(res.statusCode).toBe(404);
    expect(res.body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'The company was not found',
      code: 'NOT_FOUND',
    });
    expect(res.headers).toEqual({});
    expect(errorLog).not.toHaveBeenCalled();
  });

  it('keeps AppError extras as top-level fields', () => {
    const res = run(new AppError('RATE_LIMITED', 'Daily limit reached', { can_watch_ad: true, remaining: 0 }));

    expect(res.statusCode).toBe(429);
    expect(res.body).toEqual({
      can_watch_ad: true,
      remaining: 0,
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'Daily limit reached',
      code: 'RATE_LIMITED',
    });
  });

  it('does not let extras override the contract fields', () => {
    const res = run(new AppError('CONFLICT', 'Taken', { statusCode: 200, code: 'OK', message: 'fine' }));
    expect(res.body).toMatchObject({ statusCode: 409, code: 'CONFLICT', message: 'Taken', error: 'Conflict' });
  });

  it('sets Retry-After from retryAfterSeconds', () => {
    const res = run(new AppError('RATE_LIMITED', 'Too many requests', {}, 17));

    expect(res.statusCode).toBe(429);
    expect(res.headers).toEqual({ 'Retry-After': '17' });
  });

  it('joins the messages of a Nest BadRequestException with "; "', () => {
    const res = run(new BadRequestException(['a must be x', 'b must be y']));

    expect(res.statusCode).toBe(400);
    expect(res.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'a must be x; b must be y',
      code: 'BAD_REQUEST',
    });
  });

  it('maps other Nest exceptions to their status and default code', () => {
    const res = run(new NotFoundException('Cannot GET /nope'));
    expect(res.statusCode).toBe(404);
    expect(res.body).toMatchObject({ message: 'Cannot GET /nope', code: 'NOT_FOUND', error: 'Not Found' });
  });

  it('answers a too-large body with 413 PAYLOAD_TOO_LARGE', () => {
    const res = run(Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413 }));

    expect(res.statusCode).toBe(413);
    expect(res.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers malformed JSON with 400 MALFORMED_JSON', () => {
    const res = run({ type: 'entity.parse.failed', status: 400, body: '{"a":' });

    expect(res.statusCode).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'MALFORMED_JSON' });
    expect(JSON.stringify(res.body)).not.toContain('{\\"a\\":');
  });

  it('answers other client-side body-parser errors with their status', () => {
    const res = run({ type: 'charset.unsupported', status: 415 });
    expect(res.statusCode).toBe(415);
    expect(res.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'The request body could not be read' });
  });

  it('hides the detail of an unexpected error behind a 500 and logs it', () => {
    const error = new Error('SELECT secret FROM users at /srv/app/x.ts:10');

    const res = run(error);

    expect(res.statusCode).toBe(500);
    expect(res.body).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: 'Internal server error',
      code: 'INTERNAL_ERROR',
    });
    const serialized = JSON.stringify(res.body);
    expect(serialized).not.toContain('SELECT');
    expect(serialized).not.toContain('secret');
    expect(serialized).not.toContain('/srv/app');
    expect(serialized).not.toContain('x.ts');
    expect(serialized).not.toContain(' at ');
    expect(serialized).not.toContain('stack');
    expect(errorLog).toHaveBeenCalledTimes(1);
    expect(errorLog.mock.calls[0][0]).toMatchObject({ err: error, method: 'GET', url: '/v1/things/1' });
  });

  // What a request meets while PostgreSQL goes down (issue 28, finding 8): never a 500.
  it.each([
    [
      'an admin shutdown (57P01) of its statement',
      new QueryFailedError(
        'UPDATE',
        [],
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ],
    ['the lost connection of its transaction', new QueryRunnerProviderAlreadyReleasedError()],
    [
      'a pooled client that failed between queries',
      new QueryFailedError('START TRANSACTION', [], new Error('Client has encountered a connection error and is not queryable')),
    ],
  ])('answers %s with 503 DATABASE_UNAVAILABLE and Retry-After', (_name, error) => {
    const res = run(error);

    expect(res.statusCode).toBe(503);
    expect(res.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The database is unavailable; try again shortly',
      code: 'DATABASE_UNAVAILABLE',
    });
    expect(res.headers).toEqual({ 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
  });

  it('treats non-Error throwables as internal errors', () => {
    const res = run('boom');
    expect(res.statusCode).toBe(500);
    expect(res.body).toMatchObject({ code: 'INTERNAL_ERROR', message: 'Internal server error' });
  });

  it('writes nothing when the headers were already sent, but still logs a server error', () => {
    const res = new RecordingResponse();
    res.headersSent = true;

    new AllExceptionsFilter().catch(new Error('late failure'), hostFor(res));

    expect(res.writes).toBe(0);
    expect(res.statusCode).toBeUndefined();
    expect(res.body).toBeUndefined();
    expect(errorLog).toHaveBeenCalledTimes(1);
  });

  it('writes nothing for an AppError when the headers were already sent', () => {
    const res = new RecordingResponse();
    res.headersSent = true;

    new AllExceptionsFilter().catch(new AppError('NOT_FOUND', 'gone'), hostFor(res));

    expect(res.writes).toBe(0);
  });
});
