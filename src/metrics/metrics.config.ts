import type { ConfigEnvironment } from '../config/environment';
import type { EnvReader } from '../config/env-reader';

export interface MetricsConfig {
  /** Bearer token of GET /metrics in production; unset there: the route does not exist. Open in local and dev. */
  metricsToken?: string;
}

export function metricsConfig(read: EnvReader, { production }: ConfigEnvironment): MetricsConfig {
  const metricsToken = read.optionalString('METRICS_TOKEN');
  // The scrape shows traffic and internals: its token must not be guessable.
  if (production && metricsToken !== undefined && metricsToken.length < 32)
    read.fail('METRICS_TOKEN', 'at least 32 characters long in production');
  return { metricsToken };
}
