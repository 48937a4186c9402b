import type { RequestHandler } from 'express';
import { sendError } from '../errors/error-body';

/**
 * The longest request target (path and query, as sent) the service reads, in characters.
 * The API's longest legitimate URLs are a fraction of it: a stock search of 100 Hangul
 * syllables (the query's maximum) is under 1,000 characters percent-encoded, the ad
 * network's reward callback a few hundred. Longer ones are refused before anything reads
 * them. (Node.js itself answers 431, with no body, to request heads over 16 KiB.)
 */
export const MAX_URL_LENGTH = 4096;

/**
 * Answers a request whose URL is longer than MAX_URL_LENGTH with 414 URI_TOO_LONG and the
 * standard error body, before the rate limits, routing, the query parser and the HTTP
 * cache see it. Installed right after the request log, which logs only a prefix of it.
 */
export function refuseLongUrls(): RequestHandler {
  return (req, res, next) => {
    if (req.originalUrl.length <= MAX_URL_LENGTH) return next();
    sendError(res, 414, 'URI_TOO_LONG', `The request URL is longer than ${MAX_URL_LENGTH} characters`);
  };
}
