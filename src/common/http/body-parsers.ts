import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../errors/app-error';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../validation/storable-values';

/** Largest accepted request body; larger bodies are refused with 413. */
export const BODY_LIMIT = '256kb';

/** What a request body must be: JSON, with any charset parameter body-parser can decode (UTF-8, -16, -32). */
const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * The methods whose routes take a body (DELETE /push/fcm-token does). A body of another type
 * on GET, HEAD or OPTIONS is left unread, as no route of theirs reads one.
 */
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Exactly as type-is (and so body-parser) decides it: a request has a body when it
 * declares one, by Transfer-Encoding or by a Content-Length that is a number (0 included).
 */
function declaresBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
}

/** What the parsers would leave: no body. */
function noBody(req: Request): void {
  if (!('body' in req)) (req as { body?: unknown }).body = undefined;
}

/**
 * JSON bodies up to the limit, in one middleware that a request without a body (every
 * GET) passes at once. Every route that takes a body takes JSON, so a non-empty body of
 * another type, or of none, is 415 `UNSUPPORTED_MEDIA_TYPE` (a form used to be parsed, and
 * then failed validation with a message that hid the cause); an empty body needs no type,
 * so bodiless POSTs (a reveal, an admin action) work from any client.
 * Parser failures become AppErrors here: Nest would otherwise turn a JSON SyntaxError into
 * a 400 carrying the parser's own wording, and the errors of the others (a body that does
 * not decompress) into 500s. JSON nested deeper than MAX_BODY_DEPTH is refused before any
 * validator recurses into it.
 */
export function bodyParser(): RequestHandler {
  const parseJson = express.json({ limit: BODY_LIMIT, type: JSON_TYPES });
  // A chunked body declares no length: only reading it tells an empty one from another.
  const readOther = express.raw({ limit: BODY_LIMIT, type: () => true });
  return (req, res, next) => {
    if (!declaresBody(req)) {
      noBody(req);
      return next();
    }
    if (req.is(JSON_TYPES)) {
      return parseJson(req, res, (error?: unknown) => {
        if (error !== undefined) return next(toAppError(error));
        next(nestsDeeperThan(req.body, MAX_BODY_DEPTH) ? TOO_DEEP : undefined);
      });
    }
    if (!METHODS_WITH_BODY.has(req.method) || Number(req.headers['content-length']) === 0) {
      noBody(req);
      return next();
    }
    if (req.headers['transfer-encoding'] === undefined) return next(notJson(req));
    readOther(req, res, (error?: unknown) => {
      if (error !== undefined) return next(toAppError(error));
      const empty = Buffer.isBuffer(req.body) && req.body.length === 0;
      (req as { body?: unknown }).body = undefined;
      next(empty ? undefined : notJson(req));
    });
  };
}

const TOO_DEEP = new AppError('BAD_REQUEST', `The JSON body is nested deeper than ${MAX_BODY_DEPTH} levels`);

/** A media type as the client named it, when it looks like one (never more than a short token pair). */
const MEDIA_TYPE = /^\s*([\w.+-]{1,64}\/[\w.+-]{1,64})\s*(;|$)/;

function notJson(req: Request): AppError {
  const declared = req.headers['content-type'];
  if (declared === undefined) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body has no Content-Type: send JSON with Content-Type: application/json');
  }
  const named = MEDIA_TYPE.exec(declared)?.[1];
  return new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `The request body must be JSON, sent with Content-Type: application/json${named ? ` (not ${named.toLowerCase()})` : ''}`,
  );
}

/** Every client-caused body-parser error (raw-body and body-parser `type`s) as a 4xx; our own faults stay 500. */
function toAppError(error: unknown): unknown {
  const { type, status } = error as { type?: unknown; status?: unknown };
  switch (type) {
    case 'entity.parse.failed':
      return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 256 kB');
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
