import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** What a header-only middleware does to every response: the headers it sets and those it removes. */
interface RecordedHeaders {
  set: Array<[name: string, value: string]>;
  removed: string[];
}

/**
 * Runs a header-only middleware such as helmet once, against a recorder, and keeps what it did:
 * helmet's twelve middlewares would each cost a step of the chain per request, for headers that
 * never change (and one it removes: X-Powered-By). Refuses a middleware whose headers depend on
 * the request (it must set them synchronously, reading nothing).
 */
function recordHeaders(middleware: NodeMiddleware): RecordedHeaders {
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
  return { set: [...headers], removed: [...removed] };
}

function apply({ set, removed }: RecordedHeaders, res: ServerResponse): void {
  for (const name of removed) res.removeHeader(name);
  for (const [name, value] of set) res.setHeader(name, value);
}

/**
 * Two sets of static security headers, each set in one step: one for the HTML pages under
 * `documentsPath` (and their scripts and styles), one for everything else, which is JSON a
 * browser never renders as a page.
 * Headers that only instruct a browser about a document it renders (a full CSP, frame and
 * referrer policies for its subresources, legacy IE and Flash switches) would be about 500 bytes
 * of every API answer for nothing.
 */
export function securityHeaders(options: { api: NodeMiddleware; documents: NodeMiddleware; documentsPath: string }): RequestHandler {
  const api = recordHeaders(options.api);
  const documents = recordHeaders(options.documents);
  const prefix = options.documentsPath;
  return (req, res, next) => {
    const url = req.url;
    // `/docs`, `/docs/…` and `/docs?…`, not `/docs-json` (JSON).
    const isDocument = url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?');
    apply(isDocument ? documents : api, res);
    next();
  };
}
