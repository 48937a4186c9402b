import type { Request } from 'express';

/** The route of a request no route answered (unknown paths, refusals before routing). */
export const NO_ROUTE = 'none';
/** The catch-all route Nest answers unknown paths with (404). */
const NOT_FOUND_ROUTE = '/{*path}';

/** The route template of a request answered before routing, on behalf of that route (HttpCacheFastLane). */
export const ROUTE_TEMPLATE = Symbol('routeTemplate');

/**
 * The route template of a routed request (`/api/v1/disclosures/:rceptNo`), else NO_ROUTE: the
 * metrics' `route` label and the access line's `req.route`, never the raw URL.
 */
export function routeTemplateOf(req: Request): string {
  const answeredFor = (req as Request & { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE];
  if (answeredFor !== undefined) return answeredFor;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && path !== NOT_FOUND_ROUTE ? path : NO_ROUTE;
}
