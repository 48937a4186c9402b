import { type AnalysisKeyFigure, ANALYSIS_LIMITS, type AnalysisResult } from '../analyzers/analysis-result.schema';
import type { AnalysisInput } from '../analyzers/analyzer';
import { type DartDocument, documentText } from '../document/dart-document';
import { MAX_MODEL_CHARS } from '../document/fit-to-model';
import { readFilingFacts } from '../facts/filing-facts';
import { factKeyFigures, factLines } from './fact-lines';
import { modelText } from './model-text';

/** The filing an analysis is of, as the disclosure list names it. */
export interface FilingMeta {
  rceptNo: string;
  corpName: string;
  reportName: string;
  /** YYYYMMDD */
  rceptDt: string;
}

/**
 * Everything an analyzer is given for a filing: its metadata, the facts read from its structure,
 * and the text a model reads, chosen for its family within `maxChars` together with the facts'
 * lines (which a prompt puts first).
 */
export function analysisInput(filing: FilingMeta, document: DartDocument, maxChars: number = MAX_MODEL_CHARS): AnalysisInput {
  const facts = readFilingFacts(document, filing.reportName);
  const lines = factLines(facts);
  const factChars = lines.reduce((sum, line) => sum + line.length + 3, 0);
  const chosen = modelText(document, facts.family, Math.max(1, maxChars - factChars));
  return {
    ...filing,
    text: chosen.text,
    docLength: documentText(document).length,
    truncated: chosen.truncated,
    omittedSections: chosen.omitted,
    facts,
    factLines: lines,
  };
}

/**
 * A result whose key figures lead with the extracted facts (each with its period and unit), then
 * the analyzer's own figures that add something (another label or period), within the limit. A
 * model's figures for the same line never replace the ones read from the filing's tables.
 */
export function withFactKeyFigures(result: AnalysisResult, input: Pick<AnalysisInput, 'facts'>): AnalysisResult {
  const facts = factKeyFigures(input.facts);
  const key = (figure: AnalysisKeyFigure): string => `${figure.label.replace(/\s/g, '')}|${figure.period ?? ''}`;
  const known = new Set(facts.map(key));
  const own = result.key_figures.filter((figure) => !known.has(key(figure)));
  return { ...result, key_figures: [...facts, ...own].slice(0, ANALYSIS_LIMITS.keyFigures.max) };
}
