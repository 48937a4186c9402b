import type { DartDocument } from '../document/dart-document';
import { readAuditor, readOpinion } from './audit-opinion';
import { readEventFacts } from './event-facts';
import type { FilingFacts } from './filing-facts.types';
import { readFinancials } from './financial-statements';
import { reportPeriod } from './periods';
import { isCorrection, reportFamily } from './report-family';

export type * from './filing-facts.types';

/**
 * What a filing states, by the family of its report: the period, the main financial lines for this
 * period and the prior one, the audit opinion and the auditor (audit and periodic reports), the
 * decision of an event form. Read from the filer's tags first, from labelled table rows second,
 * never from running text; a figure whose period or unit cannot be placed is left out.
 */
export function readFilingFacts(document: DartDocument, reportName: string): FilingFacts {
  const { family, eventKind } = reportFamily(reportName, document);
  const corrected = isCorrection(reportName);
  if (family === 'periodic' || family === 'audit') {
    const period = reportPeriod(document, reportName);
    return {
      family,
      eventKind,
      corrected,
      period,
      financials: readFinancials(document, family, period),
      opinion: readOpinion(document),
      auditor: readAuditor(document),
      event: [],
    };
  }
  if (family === 'event') {
    const { facts, financials, period } = readEventFacts(document, eventKind ?? 'other', reportName);
    return { family, eventKind, corrected, period, financials, opinion: null, auditor: null, event: facts };
  }
  return { family, eventKind, corrected, period: null, financials: [], opinion: null, auditor: null, event: [] };
}
