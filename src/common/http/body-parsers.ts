import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../errors/app-error';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../validation/storable-values';

/** Largest accepted request body; larger bodies are refused with 413. */
export const BODY_LIMIT = '256kb';

/**
 * Exactly as type-is (and so body-parser) decides it: a request has a body when it
 * declares one, by Transfer-Encoding or by a Content-Length that is a number (0 included).
 */
function declaresBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
}

/**
 * JSON and form bodies up to the limit, in one middleware that a request without a
 * body (every GET) passes at once. Parser failures become AppErrors here:
 * Nest would otherwise turn a JSON SyntaxError into a 400 carrying the parser's
 * own wording, and the errors of the others (a body that does not decompress) into 500s.
 * JSON nested deeper than MAX_BODY_DEPTH is refused before any validator recurses into it.
 * (Forms are parsed flat, `extended: false`, so they cannot nest.)
 */
export function bodyParser(): RequestHandler {
  const parseJson = express.json({ limit: BODY_LIMIT });
  const parseForm = express.urlencoded({ limit: BODY_LIMIT, extended: false });
  return (req, res, next) => {
    if (!declaresBody(req)) {
      // What the parsers would leave: no body.
      if (!('body' in req)) (req as { body?: unknown }).body = undefined;
      return next();
    }
    parseJson(req, res, (error?: unknown) => {
      if (error !== undefined) return next(toAppError(error));
      if (nestsDeeperThan(req.body, MAX_BODY_DEPTH)) return next(TOO_DEEP);
      parseForm(req, res, (formError?: unknown) => next(formError === undefined ? undefined : toAppError(formError)));
    });
  };
}

const TOO_DEEP = new AppError('BAD_REQUEST', `The JSON body is nested deeper than ${MAX_BODY_DEPTH} levels`);

/** Every client-caused body-parser error (raw-body and body-parser `type`s) as a 4xx; our own faults stay 500. */
function toAppError(error: unknown): unknown {
  const { type, status } = error as { type?: unknown; status?: unknown };
  switch (type) {
    case 'entity.parse.failed':
      return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 256 kB');
    case 'parameters.too.many':
      return new AppError('PAYLOAD_TOO_LARGE', 'The form body has too many fields');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported');
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('BAD_REQUEST', 'The request body does not match its Content-Length');
    case undefined:
      // A body that does not decompress as its Content-Encoding says: zlib's error, which body-parser gives status 400.
      if (status === 400) return new AppError('BAD_REQUEST', 'The request body is not valid for its Content-Encoding');
      return error;
    default:
      // stream.encoding.set, stream.not.readable: a fault of the pipeline, not of the request.
      return error;
  }
}
