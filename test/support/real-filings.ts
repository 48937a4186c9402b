import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalysisInput } from '../../src/analysis/analyzers/analyzer';
import { analysisInput, type FilingMeta } from '../../src/analysis/brief/filing-brief';
import { type DartDocument, parseDartDocument } from '../../src/analysis/document/dart-document';
import { decodeDocument } from '../../src/analysis/document/document-encoding';

// Excerpts of real filings (test/fixtures/real-filings/SOURCES.md), read the way the service reads a
// document.xml entry: bytes → encoding detected → DART document.

const FOLDER = join(__dirname, '..', 'fixtures', 'real-filings');

/** The markup of an excerpt, decoded as the service decodes a document entry. */
export function realMarkup(file: string): string {
  return decodeDocument(readFileSync(join(FOLDER, file))).text;
}

export function realDocument(file: string): DartDocument {
  return parseDartDocument(realMarkup(file));
}

/**
 * 삼성전자's 2023 annual report, shortened: four contiguous slices of the real document (the cover
 * and I.1; II.1-2; III.1 요약재무정보; IV and V), joined with the end tags of the sections each
 * slice leaves open, so that the sections nest as in the whole report.
 */
export function samsungAnnualReportMarkup(): string {
  const slice = (n: number): string => realMarkup(`20240312000736.annual-report.slice-${n}.xml`);
  const close = '</SECTION-2></SECTION-1>';
  return `${slice(1)}${close}${slice(2)}${close}${slice(3)}${close}${slice(4)}</BODY></DOCUMENT>`;
}

/** An analysis input for an excerpt, with the metadata the disclosure list would give. */
export function realInput(
  file: string,
  meta: Partial<FilingMeta> & Pick<FilingMeta, 'corpName' | 'reportName'>,
  maxChars?: number,
): AnalysisInput {
  const rceptNo = /(\d{14})/.exec(file)?.[1] ?? '20250101000000';
  return analysisInput({ rceptNo, rceptDt: rceptNo.slice(0, 8), ...meta }, realDocument(file), maxChars);
}
