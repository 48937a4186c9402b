import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The headers a header-only middleware such as helmet sets, worked out once and then
 * set on every response in one call: helmet's twelve middlewares each cost a step of
 * the chain per request, for headers that never change (and one it removes: X-Powered-By). Refuses a middleware whose
 * headers depend on the request (it must set them synchronously, reading nothing).
 */
export function staticHeaders(middleware: NodeMiddleware): RequestHandler {
  const headers = new Map<string, string>();
  const removed = new Set<string>();
  const request = new Proxy({} as IncomingMessage, {
    get: (_target, property) => {
      throw new Error(`the security headers must not depend on the request (they read ${String(property)})`);
    },
  });
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      removed.delete(name.toLowerCase());
      headers.set(name, String(value));
    },
    removeHeader: (name: string) => {
      headers.delete(name);
      removed.add(name.toLowerCase());
    },
  } as unknown as ServerResponse;
  let finished = false;
  middleware(request, recorder, (error) => {
    if (error !== undefined) throw error;
    finished = true;
  });
  if (!finished) throw new Error('the security headers middleware must call next() at once');
  const entries = [...headers];
  const removals = [...removed];
  return (_req, res, next) => {
    for (const name of removals) res.removeHeader(name);
    for (const [name, value] of entries) res.setHeader(name, value);
    next();
  };
}
