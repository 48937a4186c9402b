import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Histogram } from 'prom-client';
import type { Metrics } from './metrics';

/** The route label of a request no route answered (unknown paths, refusals before routing). */
export const NO_ROUTE = 'none';
/** The catch-all route Nest answers unknown paths with (404). */
const NOT_FOUND_ROUTE = '/{*path}';

/**
 * Times every request into `http_request_duration_seconds`, labelled by the route
 * template (`/api/v1/disclosures/:rceptNo`, never the raw URL, so the label set stays
 * bounded). Per request it costs one clock read, one `finish` listener and a lookup of
 * an already labelled child: the children are kept, so no label hashing per request.
 */
export function recordRequestDuration(metrics: Metrics): RequestHandler {
  const children = new Map<string, Histogram.Internal<'method' | 'route' | 'status_code'>>();
  return (req: Request, res: Response, next: NextFunction) => {
    const startedAt = process.hrtime.bigint();
    res.once('finish', () => {
      const route = (req.route as { path?: unknown } | undefined)?.path;
      const template = typeof route === 'string' && route !== NOT_FOUND_ROUTE ? route : NO_ROUTE;
      const key = `${req.method} ${template} ${res.statusCode}`;
      let child = children.get(key);
      if (child === undefined) {
        child = metrics.httpRequestDuration.labels(req.method, template, String(res.statusCode));
        children.set(key, child);
      }
      child.observe(Number(process.hrtime.bigint() - startedAt) / 1e9);
    });
    next();
  };
}
