import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Clock } from '../common/clock';
import type { HistogramSeries } from '../runtime-fixes/prom-client-fast-metrics/fast-metrics';
import { routeTemplateOf } from '../common/http/route-template';
import type { Metrics } from './metrics';

/** When the request arrived (the clock's monotonic time), kept on its response for the 'finish' listener. */
const STARTED_AT = Symbol('requestStartedAt');
type TimedResponse = Response & { [STARTED_AT]: number };

/**
 * Times every request into `http_request_duration_seconds`, labelled by the route
 * template (never the raw URL, so the label set stays bounded), on the monotonic time
 * of `clock`. Per request: one clock read, one shared 'finish' listener (no closure),
 * three map lookups of a series kept since its first request, and its observe (a few increments).
 */
export function recordRequestDuration(metrics: Metrics, clock: Clock): RequestHandler {
  // method → route template → status → series: no key string is built per request.
  const byMethod = new Map<string, Map<string, Map<number, HistogramSeries>>>();

  function seriesOf(method: string, route: string, status: number): HistogramSeries {
    let byRoute = byMethod.get(method);
    if (byRoute === undefined) byMethod.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (byStatus === undefined) byRoute.set(route, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) byStatus.set(status, (series = metrics.httpRequestDuration.series(method, route, String(status))));
    return series;
  }

  function finished(this: TimedResponse): void {
    const seconds = (clock.monotonicMs() - this[STARTED_AT]) / 1000;
    seriesOf(this.req.method, routeTemplateOf(this.req), this.statusCode).observe(seconds);
  }

  return (_req: Request, res: Response, next: NextFunction) => {
    (res as TimedResponse)[STARTED_AT] = clock.monotonicMs();
    // `on`, not `once`: a response finishes once, and once would wrap the listener per request.
    res.on('finish', finished);
    next();
  };
}
