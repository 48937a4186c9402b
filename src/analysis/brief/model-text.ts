import { type DartDocument, type DartSection, documentText } from '../document/dart-document';
import { fitToModel, keepHead } from '../document/fit-to-model';
import type { ReportFamily } from '../facts/filing-facts.types';

// What a model reads of a long filing: the sections that matter for its family, chosen, not cut.

/** Text a model reads, and what was left out of it. */
export interface ModelText {
  text: string;
  /** Something was left out or cut: whole sections (named in `omitted`), or, for text without sections, its middle. */
  truncated: boolean;
  /** The sections left out, by their titles ("III. 재무에 관한 사항 > 3. 연결재무제표 주석"). */
  omitted: string[];
}

/** Sections of each family, most wanted first; a section matches by its own title or an enclosing one. */
const WANTED_SECTIONS: Readonly<Partial<Record<ReportFamily, readonly RegExp[]>>> = {
  periodic: [
    /요약\s*재무\s*정보/,
    /외부감사에\s*관한\s*사항|회계감사인의\s*감사의견/,
    /사업의\s*개요/,
    /이사의\s*경영진단/,
    /1\.\s*회사의\s*개요$/,
    /매출\s*및\s*수주/,
    /배당에\s*관한/,
    /우발부채|제재\s*등|작성기준일\s*이후/,
    /주요\s*제품/,
    /최대주주/,
  ],
  audit: [/감사인의\s*감사보고서|감사보고서$/, /재\s*무\s*제\s*표(?!.*주석)/, /계속기업|강조사항/, /주석/],
};

/** Sections no budget is spent on before everything else: the detailed tables and notes of a periodic report. */
const LAST_SECTIONS = /상세표|주석|전문가의\s*확인|대표이사\s*등의\s*확인/;

/** The least a cut section keeps: smaller is a fragment, not a section. */
const MIN_CUT_CHARS = 2_000;

/** A section's own lines (without its subsections'), the unit that is chosen or left out. */
interface Part {
  section: DartSection | null;
  /** "III. 재무에 관한 사항 > 1. 요약재무정보" */
  path: string;
  lines: Array<[number, number]>;
}

/**
 * The text of a filing for a model, within `maxChars`. Text that fits is passed whole. A longer
 * periodic or audit report passes the sections its family is read for, most wanted first (for an
 * annual report: III's summary financial information, the audit opinion, the business overview,
 * management's analysis, then the rest as room allows, notes and detail tables last), each whole
 * where it fits and the most wanted cut at a line when it does not; the parts keep their document
 * order and each is headed by its section path. Other families, and documents without sections,
 * keep their beginning and end (fitToModel).
 */
export function modelText(document: DartDocument, family: ReportFamily, maxChars: number): ModelText {
  const whole = documentText(document);
  if (whole.length <= maxChars) return { text: whole, truncated: false, omitted: [] };
  const wanted = WANTED_SECTIONS[family];
  // A section whose own lines are only its title says nothing its subsections' headings do not.
  const parts = sectionParts(document).filter((part) => part.section === null || !titleOnly(document, part));
  if (wanted === undefined || parts.filter((part) => part.section !== null).length < 2) {
    const fitted = fitToModel(whole, maxChars);
    return { text: fitted.text, truncated: fitted.truncated, omitted: [] };
  }

  const rank = (part: Part): number => {
    const at = wanted.findIndex((pattern) => pattern.test(part.path));
    if (at !== -1) return at;
    return LAST_SECTIONS.test(part.path) ? wanted.length + 1 : wanted.length;
  };
  const order = parts.map((part, index) => ({ part, index, rank: rank(part) })).sort((a, b) => a.rank - b.rank || a.index - b.index);
  const chosen = new Map<number, string>();
  let room = maxChars;
  for (const { part, index, rank: partRank } of order) {
    const text = render(document, part);
    // Each part is joined to the next by a line break.
    if (text.length + 1 <= room) {
      chosen.set(index, text);
      room -= text.length + 1;
    } else if (partRank < wanted.length && room - 1 >= MIN_CUT_CHARS) {
      const cut = keepHead(text, room - CUT_MARK.length - 2);
      chosen.set(index, `${cut}\n${CUT_MARK}`);
      room -= cut.length + CUT_MARK.length + 2;
    }
  }
  const text = [...chosen.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, partText]) => partText)
    .join('\n');
  const omitted = parts.filter((_, index) => !chosen.has(index) && parts[index].section !== null).map((part) => part.path);
  return { text, truncated: true, omitted };
}

function titleOnly(document: DartDocument, part: Part): boolean {
  return (
    part.lines.length === 1 && part.lines[0][1] - part.lines[0][0] === 1 && document.lines[part.lines[0][0]].text === part.section?.title
  );
}

/** The line that ends a section cut short. */
const CUT_MARK = '…(이하 생략)…';

/** The document as parts: the lines before any section, then each section's own lines. */
function sectionParts(document: DartDocument): Part[] {
  const owner = new Array<number>(document.lines.length).fill(-1);
  // Sections nest and come in document order: inner ones overwrite their parent's claim.
  for (const section of document.sections) for (let at = section.firstLine; at < section.endLine; at++) owner[at] = section.index;
  const parts: Part[] = [];
  const bySection = new Map<number, Part>();
  for (let at = 0; at < document.lines.length; at++) {
    const index = owner[at];
    let part = bySection.get(index);
    if (part === undefined) {
      const section = index === -1 ? null : document.sections[index];
      part = { section, path: section === null ? '' : sectionPath(document, section), lines: [] };
      bySection.set(index, part);
      parts.push(part);
    }
    const last = part.lines.at(-1);
    if (last !== undefined && last[1] === at) last[1] = at + 1;
    else part.lines.push([at, at + 1]);
  }
  return parts;
}

function sectionPath(document: DartDocument, section: DartSection): string {
  const titles: string[] = [];
  for (let at: number = section.index; at !== -1; at = document.sections[at].parent)
    titles.unshift(document.sections[at].title || '(제목 없음)');
  return titles.join(' > ');
}

/** A part's text, headed by its section path when that says more than its own title line. */
function render(document: DartDocument, part: Part): string {
  const body = part.lines.flatMap(([from, to]) => document.lines.slice(from, to).map((line) => line.text)).join('\n');
  if (part.section === null || part.section.parent === -1) return body;
  return `【${part.path}】\n${body}`;
}
