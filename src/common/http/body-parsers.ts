import express, { type RequestHandler } from 'express';
import { AppError } from '../errors/app-error';

/** Largest accepted request body; larger bodies are refused with 413. */
export const BODY_LIMIT = '256kb';

/**
 * JSON and form bodies up to the limit. Parser failures become AppErrors here:
 * Nest would otherwise turn a JSON SyntaxError into a 400 carrying the parser's
 * own wording.
 */
export function bodyParsers(): RequestHandler[] {
  return [express.json({ limit: BODY_LIMIT }), express.urlencoded({ limit: BODY_LIMIT, extended: false })].map(
    (parse): RequestHandler =>
      (req, res, next) =>
        parse(req, res, (error?: unknown) => next(error === undefined ? undefined : toAppError(error))),
  );
}

function toAppError(error: unknown): unknown {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.parse.failed') return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 256 kB');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported');
  }
  return error;
}
