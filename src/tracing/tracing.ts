import { hostname } from 'node:os';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { version } from '../../package.json';

/** The service as traces name it; the same word as the log lines' `service`. */
export const SERVICE_NAME = 'disclosure-briefing';

/** What stops tracing at shutdown, after the last span: flushes what is still buffered. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Whether traces are exported: an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT, or the
 * traces-only OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and the SDK is not switched off
 * (OTEL_SDK_DISABLED=true). The OTEL_* variables are OpenTelemetry's own, read by its SDK.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * The libraries whose work becomes spans: the HTTP server and clients, Express and Nest
 * (the route and the handler), PostgreSQL queries, undici (fetch: the disclosure
 * system, the models) and pino, which writes the active span's `trace_id` and `span_id`
 * into every log line.
 */
export function instrumentations(): Instrumentation[] {
  // Required here, not imported above: a service without tracing never loads them.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { NestInstrumentation } =
    require('@opentelemetry/instrumentation-nestjs-core') as typeof import('@opentelemetry/instrumentation-nestjs-core');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { PinoInstrumentation } = require('@opentelemetry/instrumentation-pino') as typeof import('@opentelemetry/instrumentation-pino');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return [
    new HttpInstrumentation({
      // Probes and scrapes come every few seconds and say nothing a trace needs.
      ignoreIncomingRequestHook: (req) => req.url === '/health' || req.url === '/health/ready' || req.url === '/metrics',
    }),
    // The route's handler and the router, not each of the dozen middlewares every request passes.
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    new NestInstrumentation(),
    new PgInstrumentation({ requireParentSpan: true }),
    new UndiciInstrumentation(),
    // Only the trace and span ids go into the lines; the lines themselves are not exported.
    new PinoInstrumentation({ disableLogSending: true }),
  ];
}

/**
 * Starts OpenTelemetry when `tracingWanted`, else does nothing at all: no instrumentation
 * patches a library, so a service without a collector pays nothing. Must run before the
 * instrumented libraries are first required (src/tracing/preload.ts, main.ts's first import).
 * W3C `traceparent` and `baggage` are honoured on incoming requests and sent on outgoing ones.
 */
export function startTracing(env: NodeJS.ProcessEnv): Tracing | undefined {
  if (!tracingWanted(env)) return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const resources = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) override these. The
    // instance is the logs' `instance`, not a random id, so a trace and its log lines match.
    resource: resources.resourceFromAttributes({
      'service.name': SERVICE_NAME,
      'service.version': version,
      'service.instance.id': `${hostname().slice(0, 40)}:${process.pid}`,
    }),
    resourceDetectors: [resources.processDetector, resources.hostDetector, resources.osDetector, resources.envDetector],
    // Traces only, exported as the OTEL_* variables say (OTLP over HTTP with protobuf by default):
    // metrics stay Prometheus's (GET /metrics), logs stay lines on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: instrumentations(),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
