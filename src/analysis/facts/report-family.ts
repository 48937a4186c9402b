import type { DartDocument } from '../document/dart-document';
import type { EventKind, ReportFamily } from './filing-facts.types';

/** "[기재정정]주요사항보고서(유상증자결정)" → "주요사항보고서(유상증자결정)", spaces removed. */
function plainReportName(reportName: string): string {
  return reportName.replace(/^\s*(\[[^\]]*\]\s*)+/, '').replace(/\s/g, '');
}

/** A correction of an earlier filing: [기재정정], [첨부정정], [정정]… in the name. */
export function isCorrection(reportName: string): boolean {
  return /^\s*(\[[^\]]*\]\s*)*\[[^\]]*정정[^\]]*\]/.test(reportName);
}

/** Event kinds by the words of the report name (spaces removed), first match wins: a termination before a contract. */
const EVENT_NAMES: ReadonlyArray<readonly [EventKind, RegExp]> = [
  ['contract_termination', /공급계약해지|계약해지/],
  ['supply_contract', /판매.?공급계약|공급계약체결|수주/],
  ['earnings', /잠정\)?실적|영업실적|매출액또는손익구조|손익구조.*변경/],
  ['bonds', /전환사채|신주인수권부사채|교환사채|사채권발행|조건부자본증권/],
  ['share_issue', /유상증자|무상증자|유무상증자/],
  ['capital_reduction', /감자/],
  ['buyback', /자기주식.*취득|자기주식취득신탁/],
  ['treasury_disposal', /자기주식.*처분/],
  ['merger', /합병|회사분할|분할결정|주식교환|주식이전/],
  ['disposal', /(처분|양도)결정/],
  ['acquisition', /(취득|양수)결정|출자/],
  ['largest_shareholder', /최대주주.*변경/],
  ['litigation', /소송|가처분|판결/],
  ['dividend', /배당/],
  ['facility_investment', /신규시설투자|시설투자/],
  ['investment_decision', /투자판단관련주요경영사항/],
  ['dissolution', /해산/],
];

/**
 * The family of a report, from the name it was listed under and its document. Periodic reports
 * (사업/반기/분기보고서) and audit reports (감사보고서, 연결감사보고서, and the audit report attached as
 * its own document, form 00760/00761) have financial statements; events (주요사항보고서 and the
 * exchange's forms) have a decision form; the rest is read as text.
 */
export function reportFamily(reportName: string, document: DartDocument): { family: ReportFamily; eventKind: EventKind | null } {
  const name = plainReportName(reportName);
  const documentName = document.name.replace(/\s/g, '');
  // The document's form decides first: an audit report attached to an annual report is an audit report.
  if (document.formCode === '00760' || document.formCode === '00761') return { family: 'audit', eventKind: null };
  if (/^(사업|반기|분기)보고서/.test(name)) return { family: 'periodic', eventKind: null };
  if (/감사보고서/.test(name) && !/제출|검토/.test(name)) return { family: 'audit', eventKind: null };
  for (const candidate of [name, documentName]) {
    const kind = EVENT_NAMES.find(([, pattern]) => pattern.test(candidate))?.[0];
    if (kind !== undefined) return { family: 'event', eventKind: kind };
  }
  if (/주요사항보고서/.test(name)) return { family: 'event', eventKind: 'other' };
  return { family: 'other', eventKind: null };
}
