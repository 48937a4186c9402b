import { startTracing, type Tracing } from './tracing';

/**
 * Imported first by main.ts, before anything that loads Express, Nest, pg, undici or pino,
 * so that OpenTelemetry can patch them when tracing is on (src/tracing/tracing.ts).
 */
export const tracing: Tracing | undefined = startTracing(process.env);
