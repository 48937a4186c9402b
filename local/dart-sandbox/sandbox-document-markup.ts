import { escapeXml } from './corp-code-document';

/** A table cell: plain text is a TD (or a TE when it reads as a figure); the tag can be given, and a TU's tag and value. */
export type Cell = string | { text: string; tag: 'TD' | 'TH' | 'TE' | 'TU'; aunit?: string; aunitValue?: string };

/** Figures as DART writes them in cells: digits with commas, decimals, parentheses or △ for negatives. */
const FIGURE = /^[△(-]?[\d,]+(\.\d+)?\)?%?$/;
/** 1234567 → '1,234,567'; negatives in parentheses, as financial statements print them. */
export function amount(value: number): string {
  const text = group(String(Math.abs(Math.round(value))));
  return value < 0 ? `(${text})` : text;
}

/** 12.345 → '12.35'; negatives with a minus, as ratios are printed. */
export function ratio(value: number): string {
  const [whole, fraction] = Math.abs(value).toFixed(2).split('.');
  return `${value < 0 ? '-' : ''}${group(whole)}.${fraction}`;
}

/** Thousands separators; a hand-written loop is many times faster than Intl on the hundreds of thousands of figures a large sandbox serves. */
function group(digits: string): string {
  let text = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let at = text.length; at < digits.length; at += 3) text += `,${digits.slice(at, at + 3)}`;
  return text;
}

/** YYYYMMDD → '2026년 03월 10일'. */
export function koreanDate(date: string): string {
  return `${date.slice(0, 4)}년 ${date.slice(4, 6)}월 ${date.slice(6, 8)}일`;
}

/** YYYYMMDD → '2026-03-10'. */
export function dashedDate(date: string): string {
  return `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`;
}

/**
 * Builds one document's markup in DART's dart4 vocabulary (SECTION-n, TITLE, P, TABLE/TR/TD/TE/TU),
 * always well-formed, and counts the characters of text it holds so generators can aim at a size.
 */
export class Markup {
  private readonly parts: string[] = [];
  private openSections: number[] = [];
  /** Characters of text written so far (tags excluded): what a text extractor would roughly keep. */
  textLength = 0;

  section(level: number, title: string): this {
    while (this.openSections.length > 0 && this.openSections[this.openSections.length - 1] >= level) this.endSection();
    this.parts.push(
      `<SECTION-${level} ACLASS="MANDATORY" APARTSOURCE="SOURCE">`,
      `<TITLE ATOC="Y" AASSOCNOTE="D-0-${level}-0-0">${this.text(title)}</TITLE>`,
    );
    this.openSections.push(level);
    return this;
  }

  endSection(): this {
    const level = this.openSections.pop();
    if (level !== undefined) this.parts.push(`</SECTION-${level}>`);
    return this;
  }

  p(text: string): this {
    this.parts.push(`<P>${this.text(text)}</P>`);
    return this;
  }

  /** A table; the first row is a header (TH cells) when `header` is true. A unit line such as '(단위 : 원)' goes above it. */
  table(rows: readonly (readonly Cell[])[], options: { header?: boolean; unit?: string } = {}): this {
    if (options.unit) this.parts.push(`<P ALIGN="RIGHT">${this.text(options.unit)}</P>`);
    this.parts.push('<TABLE BORDER="1" WIDTH="600" ACLASS="NORMAL"><TBODY>');
    rows.forEach((row, index) => {
      const cells = row.map((cell) => {
        const { text, tag, aunit, aunitValue } =
          typeof cell === 'string'
            ? {
                text: cell,
                tag: index === 0 && options.header ? 'TH' : FIGURE.test(cell) ? 'TE' : 'TD',
                aunit: undefined,
                aunitValue: undefined,
              }
            : cell;
        const align =
          tag === 'TE'
            ? ' ALIGN="RIGHT"'
            : tag === 'TU'
              ? ` AUNIT="${aunit ?? 'SHARE_KIND'}"${aunitValue === undefined ? '' : ` AUNITVALUE="${aunitValue}"`}`
              : '';
        return `<${tag}${align}>${this.text(text)}</${tag}>`;
      });
      this.parts.push(`<TR>${cells.join('')}</TR>`);
      this.textLength += 3 * Math.max(0, row.length - 1) + 1;
    });
    this.parts.push('</TBODY></TABLE>');
    return this;
  }

  toString(): string {
    while (this.openSections.length > 0) this.endSection();
    return this.parts.join('\n');
  }

  private text(value: string): string {
    this.textLength += value.length + 1;
    return escapeXml(value);
  }
}

export interface DocumentHead {
  /** As in list.json, e.g. '사업보고서 (2025.12)'. */
  documentName: string;
  /** DOCUMENT-NAME ACODE, the form's code. */
  formCode: string;
  corpCode: string;
  corpName: string;
  /** COVER-TITLE: the form's name, letter-spaced on the printed cover. */
  coverTitle: string;
  /** Label and value lines of the cover (company, CEO, address, the period a report covers…). */
  coverLines: ReadonlyArray<readonly Cell[]>;
  /** SUMMARY extractions: machine-read metadata, not content. */
  summary: ReadonlyArray<readonly [string, string]>;
  /** YYYYMMDD of the form version in FORMULA-VERSION. */
  formulaDate: string;
}

/** The whole document: declaration, header metadata, cover and body, as DART files it. */
export function dartDocument(head: DocumentHead, body: string, encodingLabel: string): string {
  const cover = new Markup();
  cover.table(head.coverLines);
  return [
    `<?xml version="1.0" encoding="${encodingLabel}"?>`,
    '<DOCUMENT xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="dart4.xsd">',
    `<DOCUMENT-NAME ACODE="${head.formCode}">${escapeXml(head.documentName)}</DOCUMENT-NAME>`,
    `<FORMULA-VERSION ADATE="${head.formulaDate}">5.6</FORMULA-VERSION>`,
    `<COMPANY-NAME AREGCIK="${head.corpCode}">${escapeXml(head.corpName)}</COMPANY-NAME>`,
    `<SUMMARY>${head.summary.map(([code, value]) => `<EXTRACTION ACODE="${code}">${escapeXml(value)}</EXTRACTION>`).join('')}</SUMMARY>`,
    '<BODY>',
    `<COVER>\n<COVER-TITLE AALIGN="CENTER">${escapeXml(head.coverTitle)}</COVER-TITLE>\n${cover.toString()}\n</COVER>`,
    body,
    '</BODY>',
    '</DOCUMENT>',
    '',
  ].join('\n');
}
