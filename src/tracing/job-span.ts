import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { SERVICE_NAME } from './tracing';

const tracer = trace.getTracer(SERVICE_NAME);

/**
 * Runs one piece of background work that did something (a monitor poll, an analysis, a
 * batch of pushes, a backfill run) as a span of its own: a root span, never a child of
 * the request that happened to wake it, named after the job. Idle polls that found
 * nothing to do are not spans. Without tracing the API's no-op tracer makes this a plain call.
 */
export async function inJobSpan<T>(job: string, work: () => Promise<T>, attributes: Attributes = {}): Promise<T> {
  return tracer.startActiveSpan(job, { root: true, attributes: { 'job.name': job, ...attributes } }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Names the filings the current job span works on (`disclosure.rcept_no`), so a trace
 * backend finds every analysis and push of one filing. Nothing without tracing.
 */
export function noteFilings(rceptNos: Iterable<string>): void {
  const span: Span | undefined = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return;
  const distinct = [...new Set(rceptNos)];
  if (distinct.length > 0) span.setAttribute('disclosure.rcept_no', distinct.length === 1 ? distinct[0] : distinct);
}
