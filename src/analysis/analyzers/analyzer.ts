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
 * Why an analysis attempt failed: `transient` failures (network, rate limit, 5xx,
 * timeouts, an answer that does not fit the schema) are retried with backoff;
 * permanent ones (refused credentials, a request the model will never accept) are not.
 */
export class AnalyzerError extends Error {
  constructor(
    readonly transient: boolean,
    message: string,
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
