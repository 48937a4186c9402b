import type { AiProvider } from '../analysis.config';
import type { FilingFacts } from '../facts/filing-facts';
import type { AnalysisResult } from './analysis-result.schema';

/**
 * What an analyzer is given (src/analysis/brief/filing-brief.ts builds it): the filing's metadata,
 * the facts read from its structure, and the text a model reads, chosen to fit.
 */
export interface AnalysisInput {
  rceptNo: string;
  corpName: string;
  reportName: string;
  /** YYYYMMDD */
  rceptDt: string;
  /** Plain text of the main document, whole or the sections chosen for its family (see `truncated`). */
  text: string;
  /** Length of the whole document text, before any choice. */
  docLength: number;
  /** Part of the document was left out of `text`. */
  truncated: boolean;
  /** The sections left out of `text`, by their titles. */
  omittedSections: string[];
  /** What the filing states: family, period, main financial lines, audit opinion, an event's decision. */
  facts: FilingFacts;
  /** The facts in Korean, one line each, exact numbers with unit and period: what a prompt gives first. */
  factLines: string[];
}

export interface AnalyzerUsage {
  promptTokens: number | null;
  completionTokens: number | null;
}

/** A validated analysis: `result` follows the versioned schema, `oneLiner` is at most 100 characters. */
export interface AnalyzerOutput<Result = AnalysisResult> {
  oneLiner: string;
  result: Result;
  provider: AiProvider;
  model: string;
  usage: AnalyzerUsage;
}

/**
 * What a failed model call says, and so what the queue does with the filing:
 * - `outage`: the model could not be asked (429 with or without Retry-After, 408, 409, 5xx,
 *   a timeout, a failed connection). Not the filing's fault: retried after the outage,
 *   never spending one of its attempts;
 * - `bad-answer`: the model answered, but not an analysis (not JSON, outside the schema, a
 *   refusal, an empty or cut answer). Retried with backoff, spending an attempt, so a filing
 *   the model cannot analyse ends UNAVAILABLE;
 * - `configuration`: a request the API will refuse every time (refused credentials, an
 *   unknown model or endpoint, a malformed request): postponed until an operator fixes it.
 */
export type AnalyzerFailure = 'outage' | 'bad-answer' | 'configuration';

/** Why an analysis attempt failed; `retryAfterMs` is what the API asked us to wait, when it said. */
export class AnalyzerError extends Error {
  constructor(
    readonly failure: AnalyzerFailure,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'AnalyzerError';
  }
}

/** Turns a filing's text into an analysis. One implementation per AI_PROVIDER. */
export abstract class Analyzer {
  abstract readonly provider: AiProvider;
  abstract readonly model: string;
  abstract analyze(input: AnalysisInput): Promise<AnalyzerOutput>;
}
