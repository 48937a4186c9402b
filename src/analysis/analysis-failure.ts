import { DartError } from '../upstream/dart/dart.types';
import { AnalyzerError } from './analyzers/analyzer';

/**
 * What ended an attempt, by what becomes of the analysis:
 * - `no-document`: the disclosure system has no document to give (014), or one it will never serve
 *   us (too large, a body that is neither a ZIP nor a status, a request it refuses): UNAVAILABLE.
 * - `budget`: our request budget refused the call, or the key's daily allowance is spent (020):
 *   wait `retryAfterMs`, attempt given back.
 * - `dart-outage`: the disclosure system could not be asked (800 maintenance, 900, HTTP 429 or 5xx,
 *   a timeout, no connection) once the client's own retries ran out: postponed, attempt given back.
 * - `model-outage`: the model could not be asked (429, 5xx, a timeout, no connection): the same.
 * - `configuration`: our fault (a refused disclosure-system key, refused model credentials):
 *   postponed until an operator fixes it, attempt given back.
 * - `spent`: the filing's own problem (the model answered badly, the document could not be read),
 *   or anything unforeseen: the attempt counts.
 */
export type AnalysisFailure =
  | { kind: 'no-document' }
  | { kind: 'budget'; retryAfterMs?: number }
  | { kind: 'dart-outage' }
  | { kind: 'model-outage'; retryAfterMs?: number }
  | { kind: 'configuration' }
  | { kind: 'spent' };

export function classifyAnalysisFailure(error: unknown): AnalysisFailure {
  if (error instanceof DartError) {
    switch (error.kind) {
      case 'missing':
      case 'request':
        return { kind: 'no-document' };
      case 'budget':
        return { kind: 'budget', retryAfterMs: error.retryAfterMs };
      case 'transient':
        return { kind: 'dart-outage' };
      case 'configuration':
        return { kind: 'configuration' };
    }
  }
  if (error instanceof AnalyzerError) {
    switch (error.failure) {
      case 'outage':
        return { kind: 'model-outage', retryAfterMs: error.retryAfterMs };
      case 'configuration':
        return { kind: 'configuration' };
      case 'bad-answer':
        return { kind: 'spent' };
    }
  }
  return { kind: 'spent' };
}

/**
 * Whether a failed document request still had the disclosure system's answer: a status that is the
 * filing's (014) or the request's, or a body it served. Its outage ends there as with a document.
 */
export function isDartAnswer(error: unknown): boolean {
  return error instanceof DartError && (error.kind === 'missing' || error.kind === 'request');
}
