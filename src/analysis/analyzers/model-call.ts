import { AnalyzerError } from './analyzer';

// What the model analyzers share about calling a model over HTTP.

/** One model call may take this long; a filing the model cannot finish in time is retried later by the queue. */
export const MODEL_TIMEOUT_MS = 120_000;

/** Low, so the same filing reads the same way; not zero, which makes some models repeat themselves. */
export const MODEL_TEMPERATURE = 0.2;

/** Room for the largest answer the schema allows, in Korean. */
export const MODEL_MAX_OUTPUT_TOKENS = 4096;

/**
 * Sent when no key is configured: the SDKs refuse to start without one, and local
 * OpenAI-compatible servers (vLLM, Ollama) ignore it. A real API answers 401.
 */
export const NO_API_KEY = 'not-configured';

/** How one model call went: answered (whatever the answer), or failed as the queue will treat it. */
export type ModelCallResult = 'ok' | 'transient' | 'permanent';

/** Options of the model analyzers that tests change, and the listener of their calls (the metrics). */
export interface ModelCallOptions {
  timeoutMs?: number;
  onCall?: (endpoint: string, result: ModelCallResult) => void;
}

/** The result a failed call reports to the listener: an outage passes, a configuration problem does not. */
export function callResultOf(error: AnalyzerError): ModelCallResult {
  return error.failure === 'configuration' ? 'permanent' : 'transient';
}

/** The headers of an error answer, as the SDKs give them (a fetch `Headers`). */
export interface ResponseHeaders {
  get(name: string): string | null;
}

/**
 * Turns an HTTP status of a model API into the queue's decision. Rate limits,
 * overload, 5xx, 408 and 409 are an outage, with the wait the API asked for if it
 * did; everything else (refused or missing credentials, an unknown model or endpoint,
 * a request the API rejects) will fail the same way every time and needs an operator.
 */
export function failureFromStatus(
  service: string,
  status: number,
  message: string,
  headers?: ResponseHeaders | null,
  nowMs: number = Date.now(),
): AnalyzerError {
  const outage = status === 408 || status === 409 || status === 429 || status >= 500;
  const hint = status === 401 || status === 403 ? ' (check the API key)' : status === 404 ? ' (check the model name and the base URL)' : '';
  const text = `${service} answered HTTP ${status}${hint}: ${message}`;
  if (!outage) return new AnalyzerError('configuration', text);
  return new AnalyzerError('outage', text, headers ? retryAfterMs(headers, nowMs) : undefined);
}

/**
 * The wait an answer asks for: OpenAI's `retry-after-ms`, else `Retry-After` in seconds
 * or as an HTTP date; undefined when absent or unreadable.
 */
export function retryAfterMs(headers: ResponseHeaders, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // An HTTP date names its day and month; Date.parse would read a bare "-5" as a year.
  const at = /[a-z]/i.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message !== error.message ? `${error.message} (${cause.message})` : error.message;
}
