import type { AiProvider } from '../analysis.config';

/** What an analyzer is given: the filing's metadata and its text, already cut to fit. */
export interface AnalysisInput {
  rceptNo: string;
  corpName: string;
  reportName: string;
  /** YYYYMMDD */
  rceptDt: string;
  /** Plain text of the main document, possibly cut (see `truncated`). */
  text: string;
  /** Length of the whole document text, before any cut. */
  docLength: number;
  truncated: boolean;
}

export interface AnalyzerUsage {
  promptTokens: number | null;
  completionTokens: number | null;
}

/** A validated analysis: `result` follows the versioned schema, `oneLiner` is at most 100 characters. */
export interface AnalyzerOutput<Result = Record<string, unknown>> {
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
