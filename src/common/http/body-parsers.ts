import express, { type RequestHandler } from 'express';

/** Largest accepted request body; larger bodies are refused with 413. */
export const BODY_LIMIT = '256kb';

/** JSON and form bodies up to the limit. Parse failures reach the exception filter. */
export function bodyParsers(): RequestHandler[] {
  return [express.json({ limit: BODY_LIMIT }), express.urlencoded({ limit: BODY_LIMIT, extended: false })];
}
