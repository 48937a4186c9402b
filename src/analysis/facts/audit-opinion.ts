import type { DartDocument } from '../document/dart-document';
import type { AuditOpinion } from './filing-facts.types';

// The one fact an audit report exists for: the auditor's opinion, and who gave it.

/** The first digit of the SUMMARY's SUPV_OPIN code, as audit reports file it (100… 적정, 2x0… 한정, 3… 부적정, 4xx… 의견거절). */
const OPINION_CODES: Readonly<Record<string, AuditOpinion>> = { '1': '적정', '2': '한정', '3': '부적정', '4': '의견거절' };

/**
 * The opinion of an audit report, or of the current year in a periodic report's V. 회계감사인의
 * 감사의견 등: from the filer's tags first (SUMMARY SUPV_OPIN; the TE cell OPN_CMT1), else from the
 * auditor's report itself, where the opinion paragraph comes first and its heading names it.
 */
export function readOpinion(document: DartDocument): { value: AuditOpinion; source: 'tag' | 'text' } | null {
  const code = document.extractions.get('SUPV_OPIN');
  if (code !== undefined && OPINION_CODES[code.charAt(0)] !== undefined) return { value: OPINION_CODES[code.charAt(0)], source: 'tag' };
  const tagged = taggedCell(document, 'OPN_CMT1');
  const fromTag = tagged === null ? null : opinionWord(tagged);
  if (fromTag !== null) return { value: fromTag, source: 'tag' };
  const fromText = readOpinionFromText(document);
  return fromText === null ? null : { value: fromText, source: 'text' };
}

/** 적정, 한정(의견), 부적정(의견), 의견거절 as a periodic report's table writes them. */
function opinionWord(text: string): AuditOpinion | null {
  const compact = text.replace(/\s/g, '');
  if (/의견거절/.test(compact)) return '의견거절';
  if (/^부적정/.test(compact)) return '부적정';
  if (/^한정/.test(compact)) return '한정';
  if (/^적정/.test(compact)) return '적정';
  return null;
}

/**
 * Sentences that state an opinion, strongest first. Only the first line that states one counts: a
 * later paragraph may recall another year's opinion ("…감사보고서에서 적정의견을 표명하였습니다").
 */
const OPINION_SENTENCES: ReadonlyArray<readonly [AuditOpinion, RegExp]> = [
  ['의견거절', /^의견거절|의견을\s*표명하지\s*(?:않|아니)/],
  // "…있지 않다는 점이 발견되지 아니하였습니다" is a review's clean conclusion, not an adverse opinion.
  ['부적정', /^부적정\s*의견|공정하게\s*표시하고\s*있지\s*(?:않|아니)(?!\S*\s*점이\s*발견되지)/],
  ['한정', /^한정\s*의견|제외하고는[^.]*(?:공정|적정)하게\s*표시/],
  ['적정', /(?:공정|적정)하게\s*표시하고\s*있습니다/],
];

/** The opinion the auditor's report states in words: the first line in it that states one. */
export function readOpinionFromText(document: DartDocument): AuditOpinion | null {
  for (const line of reportLines(document)) {
    const text = line.replace(/^\s+/, '');
    const found = OPINION_SENTENCES.find(([, pattern]) => pattern.test(text));
    if (found !== undefined) return found[0];
  }
  return null;
}

/** The lines of the auditor's report: its section when the document has one, else the first lines. */
function reportLines(document: DartDocument): string[] {
  const section = document.sections.find((candidate) => /감사인의\s*감사보고서|감사보고서$/.test(candidate.title));
  const lines = section === undefined ? document.lines.slice(0, 120) : document.lines.slice(section.firstLine, section.endLine);
  return lines.map((line) => line.text);
}

/**
 * An audit firm's name, however spaced ("삼 화 회 계 법 인", "송림공인회계사감사반", "전진 (제232호) 공인회계사
 * 감사반", "이백십호 공인회계사 감사반(제210호)"), alone on its line or before its signatory.
 */
const AUDITOR_NAME =
  /^((?:[가-힣A-Za-z&]|\(주\)|\(제\d+호\)){2,30}?(?:회계법인|감사반)(?:\(제\d+호\))?)(?:\(주\))?(?:대표이사|대표|공인회계사|$)/;

/**
 * The auditor: the firm named in the periodic report's opinion table (OPN_AUR1), else the firm whose
 * name stands alone (or before its signatory) at the end of the auditor's report or on the cover.
 * Prose that names a firm ("…성문회계법인이 감사하였으며") is never read as the auditor.
 */
export function readAuditor(document: DartDocument): string | null {
  const tagged = taggedCell(document, 'OPN_AUR1');
  if (tagged !== null && /회계법인|감사반/.test(tagged)) return tagged.replace(/\s/g, '');
  const report = reportLines(document).reverse();
  for (const text of [...report.flatMap((line) => line.split(' | ')), ...document.coverLines]) {
    const compact = text.replace(/\s/g, '');
    if (compact.length > 40) continue;
    const name = AUDITOR_NAME.exec(compact);
    if (name !== null) return name[1];
  }
  return null;
}

function taggedCell(document: DartDocument, code: string): string | null {
  for (const table of document.tables) {
    for (const row of table.rows) {
      const cell = row.cells.find((candidate) => candidate.acode === code);
      if (cell !== undefined && cell.text !== '' && cell.text !== '-') return cell.text;
    }
  }
  return null;
}
