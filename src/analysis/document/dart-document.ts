import { Parser } from 'htmlparser2';
import { decodeDartEntities, LINE_SEPARATOR } from './dart-entities';

// One model of a filing's document, read the way DART structures it: the header (name, form code,
// company), the machine-read SUMMARY, the printed cover, the sections (SECTION-n with their TITLE),
// the tables with every cell kept in place (spans, the filer's ACODE/AUNIT tags, header rows) and the
// plain text, one line per block or table row. The text is what `doc_length` measures and what a
// model reads; the tables and tags are what the facts are read from (src/analysis/facts/).

/** A table cell as the filer marked it up. */
export interface DartCell {
  text: string;
  /** TD and TH, TE (a cell holding a value) and TU (a cell holding a unit, a date or a choice). */
  tag: 'td' | 'th' | 'te' | 'tu';
  /** The filer's machine-readable code: an account (financial statements) or a form field (event reports). */
  acode?: string;
  /** What a TU cell holds (PERIODFROM, WON, ACQ_BGN…) and its value in machine form (20250101, 1, 3…). */
  aunit?: string;
  aunitValue?: string;
  /** The column slot of a statement row: 0 the account's name, then the amount columns. */
  adelim?: number;
  colSpan: number;
  rowSpan: number;
  /** An input field of the exchange's HTML forms (`span.xforms_input`): a value, never a label. */
  input: boolean;
}

export interface DartRow {
  cells: DartCell[];
  /** In THEAD. */
  head: boolean;
}

export interface DartTable {
  index: number;
  /** The innermost section holding the table, -1 outside any. */
  section: number;
  /** ACLASS of the enclosing TABLE-GROUP (PIS-2:A an income statement, PBS-2:A a balance sheet, COVER…). */
  group: string | null;
  /** The last text line before the table that was not a table row ("손 익 계 산 서", "가. 요약연결재무정보"). */
  caption: string;
  rows: DartRow[];
  /** Part of the printed cover (not in the text). */
  cover: boolean;
  /** Lines of the text the table's rows became: [firstLine, endLine). Empty for a cover table. */
  firstLine: number;
  endLine: number;
}

export interface DartSection {
  index: number;
  /** n of SECTION-n. */
  level: number;
  title: string;
  /** The enclosing section, -1 for a top-level one. */
  parent: number;
  /** Lines of the text inside the section, its title included: [firstLine, endLine). */
  firstLine: number;
  endLine: number;
}

export interface DartLine {
  text: string;
  /** The innermost section holding the line, -1 outside any. */
  section: number;
  /** The table the line is a row of, -1 for a block of text. */
  table: number;
}

export interface DartDocument {
  /** DOCUMENT-NAME: 사업보고서, 감사보고서, 주요사항보고서(자기주식 취득 결정)… */
  name: string;
  /** DOCUMENT-NAME's ACODE, the form: 11011 사업보고서, 00760 감사보고서, 11332 자기주식 취득 결정… */
  formCode: string | null;
  company: string;
  /** SUMMARY's EXTRACTION values by ACODE (SUPV_OPIN, AUDIT_CIK, TOT_ASSETS…). */
  extractions: ReadonlyMap<string, string>;
  /** The text, one line a block or table row, the cover left out; the header names come first. */
  lines: DartLine[];
  /** The printed cover's text lines (periods, the auditor's name, the signatory). */
  coverLines: string[];
  tables: DartTable[];
  sections: DartSection[];
}

/** The plain text of a document: its lines joined by line breaks. `doc_length` is its length. */
export function documentText(document: DartDocument): string {
  return document.lines.map((line) => line.text).join('\n');
}

/** The text of lines [from, to). */
export function linesText(document: DartDocument, from: number, to: number): string {
  return document.lines
    .slice(from, to)
    .map((line) => line.text)
    .join('\n');
}

/** Elements that never hold anything, whether or not the markup closes them (`<BR>`, `<BR/>`, `<BR></BR>`). */
const VOID_ELEMENTS = new Set(['br', 'pgbrk', 'hr', 'col', 'meta', 'link', 'wbr']);
/** Table cells of dart4: TD and TH, TE (a cell holding a figure) and TU (a cell holding a unit or choice). */
const CELLS = new Set(['td', 'th', 'te', 'tu']);
/** Elements that start and end a line of text. Unknown elements are inline: their text is kept in the flow. */
const BLOCKS = new Set([
  'document',
  'body',
  'part',
  'library',
  'title',
  'p',
  'div',
  'br',
  'pgbrk',
  'hr',
  'table',
  'table-group',
  'thead',
  'tbody',
  'tfoot',
  'caption',
  'image',
  'img-caption',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'blockquote',
  'pre',
]);
/** Formatting that may sit inside text-only elements without ending them. */
const INLINE_FORMATTING = new Set(['span', 'a', 'b', 'i', 'u', 'em', 'strong', 'font', 'sup', 'sub', 'br']);

const SECTION_TAG = /^section-(\d+)$/;
const isSection = (name: string): boolean => SECTION_TAG.test(name);
const isBlock = (name: string): boolean => BLOCKS.has(name) || isSection(name);

/**
 * Elements whose text is dropped, each with the elements that end the drop when the markup never
 * closes it (an unclosed element must not swallow the document).
 */
const DROPPED: ReadonlyMap<string, (opening: string) => boolean> = new Map([
  // Machine-read form version.
  ['formula-version', (opening: string) => !INLINE_FORMATTING.has(opening)],
  // The cover's big title repeats the document's name.
  ['cover-title', (opening: string) => !INLINE_FORMATTING.has(opening)],
  // Image file names; the caption (IMG-CAPTION) is kept.
  ['img', (opening: string) => !INLINE_FORMATTING.has(opening)],
  // HTML attachments.
  ['head', (opening: string) => opening === 'body'],
  ['style', (opening: string) => !INLINE_FORMATTING.has(opening)],
  ['script', (opening: string) => !INLINE_FORMATTING.has(opening)],
]);

/** The printed cover ends at its close, or, unclosed, at the first section, PART or LIBRARY. */
const endsCover = (opening: string): boolean => isSection(opening) || opening === 'part' || opening === 'library';
/** An unclosed SUMMARY ends where the body or the cover begins. */
const endsSummary = (opening: string): boolean => opening === 'body' || opening === 'cover' || isSection(opening);

/** `<` that cannot start a tag ("영업이익 < 0", "<주석>") is text: escaped so the tokenizer does not take it for one. */
const STRAY_LESS_THAN = /<(?![A-Za-z]|\/[A-Za-z]|[!?])/g;

/** htmlparser2 in XML mode (no HTML rules for TITLE or P), with our void elements. */
class DartMarkupParser extends Parser {
  protected override isVoidElement(name: string): boolean {
    return VOID_ELEMENTS.has(name);
  }
}

/**
 * Reads a DART document (dart3/dart4 markup, or the exchange's HTML forms; often not well-formed).
 * Never throws on bad markup: unclosed and mismatched tags are closed where the parser can tell, tag
 * case is ignored, a `<` that cannot start a tag is text, unknown entities and stray `&` stay as
 * written. Entities are decoded, DART's own `&cr;` as a line break.
 *
 * Text: the cover, SUMMARY, FORMULA-VERSION, image file names, comments, processing instructions and
 * HTML head/style/script are left out; each block (P, TITLE, SECTION-n, BR, TABLE, headings…) and each
 * table row is a line, the non-empty cells of a row joined with ' | ' (blocks inside a cell become
 * spaces, a nested table's rows join its cell); whitespace is collapsed, lines trimmed, empty lines dropped.
 */
export function parseDartDocument(markup: string): DartDocument {
  const builder = new DocumentBuilder();
  const parser = new DartMarkupParser(
    {
      onopentag: (name, attributes) => builder.open(name, attributes),
      onclosetag: (name) => builder.close(name),
      ontext: (text) => builder.text(text),
    },
    // Entities are decoded by the builder: the XML mode knows only the five XML ones, and DART uses &nbsp; and &cr;.
    { xmlMode: true, lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: false, recognizeSelfClosing: true },
  );
  parser.end(markup.replace(STRAY_LESS_THAN, '&lt;'));
  return builder.finish();
}

/** A cell being read. */
interface CellDraft extends Omit<DartCell, 'text'> {
  text: string;
  /** Depth of the element that opened it (-1 for text found between cells). */
  depth: number;
}

/** A row being read; rows nest when a table sits inside a cell. */
interface RowDraft {
  cells: CellDraft[];
  cell: CellDraft | null;
  /** Depth of the TR; -1 for cells found outside any TR. */
  depth: number;
  head: boolean;
}

/** What the text of the moment belongs to. */
type Capture = 'document-name' | 'company-name' | 'extraction' | 'title';

class DocumentBuilder {
  private readonly lines: DartLine[] = [];
  private readonly coverLines: string[] = [];
  private readonly tables: DartTable[] = [];
  private readonly sections: DartSection[] = [];
  private readonly extractions = new Map<string, string>();
  private name = '';
  private formCode: string | null = null;
  private company = '';

  private line = '';
  /** Text not yet decoded: entities may arrive split over several text events. */
  private raw = '';
  /** Open elements; the parser reports every close, implied or written, so this mirrors its stack. */
  private depth = 0;
  private dropping: { depth: number; endedBy: (opening: string) => boolean } | null = null;
  private cover: { depth: number } | null = null;
  private summary: { depth: number } | null = null;
  private capture: { kind: Capture; depth: number; text: string; code?: string } | null = null;
  private readonly rows: RowDraft[] = [];
  /** Open sections, innermost last, with the depth of their element. */
  private readonly openSections: Array<{ index: number; depth: number }> = [];
  private readonly openGroups: Array<{ aclass: string | null; depth: number }> = [];
  /** The top-level table being read (a table inside a cell is part of that cell). */
  private table: { record: DartTable; depth: number } | null = null;
  private thead = 0;
  private caption = '';

  text(text: string): void {
    if (this.dropping === null) this.raw += text;
  }

  open(name: string, attributes: Record<string, string>): void {
    this.flushText();
    this.depth++;
    if (this.dropping !== null) {
      if (!this.dropping.endedBy(name)) return;
      this.dropping = null;
    }
    if (this.cover !== null && endsCover(name)) this.endCover();
    if (this.summary !== null && endsSummary(name)) this.summary = null;
    // A name, title or extraction value holds text only: a block opening inside one ends it, so an unclosed TITLE never swallows a section.
    if (this.capture !== null && !INLINE_FORMATTING.has(name)) this.endCapture();
    const endedBy = DROPPED.get(name);
    if (endedBy !== undefined) {
      this.dropping = { depth: this.depth, endedBy };
      return;
    }
    switch (name) {
      case 'cover':
        this.boundary();
        this.cover = { depth: this.depth };
        return;
      case 'summary':
        this.summary = { depth: this.depth };
        return;
      case 'document-name':
        this.boundary();
        this.capture = { kind: 'document-name', depth: this.depth, text: '', code: attributes.acode };
        return;
      case 'company-name':
        this.boundary();
        this.capture = { kind: 'company-name', depth: this.depth, text: '' };
        return;
      case 'extraction':
        if (this.summary !== null) this.capture = { kind: 'extraction', depth: this.depth, text: '', code: attributes.acode };
        return;
      case 'table-group':
        this.openGroups.push({ aclass: attributes.aclass ?? null, depth: this.depth });
        break;
      case 'thead':
        this.thead++;
        break;
      case 'span':
        // The exchange's forms mark every filled-in value.
        if (/\bxforms_input\b/.test(attributes.class ?? '')) {
          const cell = this.rows.at(-1)?.cell;
          if (cell) cell.input = true;
        }
        return;
    }
    if (isSection(name)) return this.openSection(name);
    if (name === 'title' && this.capture === null && this.rows.length === 0) {
      this.boundary();
      this.capture = { kind: 'title', depth: this.depth, text: '' };
      return;
    }
    if (name === 'table' && this.table === null && this.openCell() === null) this.openTable();
    if (name === 'tr') {
      this.endLooseCells();
      this.rows.push({ cells: [], cell: null, depth: this.depth, head: this.thead > 0 });
    } else if (CELLS.has(name)) {
      let row = this.rows.at(-1);
      if (row === undefined) {
        row = { cells: [], cell: null, depth: -1, head: false };
        this.rows.push(row);
      }
      // A cell opening before the previous one closed (`<TD>a<TD>b`) ends it.
      if (row.cell !== null) finishCell(row);
      row.cell = newCell(name as DartCell['tag'], attributes, this.depth);
    } else if (isBlock(name)) {
      this.boundary();
    }
  }

  close(name: string): void {
    this.flushText();
    const depth = this.depth--;
    if (this.dropping !== null) {
      if (depth === this.dropping.depth) this.dropping = null;
      return;
    }
    if (this.capture !== null && depth === this.capture.depth) return this.endCapture();
    if (this.cover !== null && depth === this.cover.depth) return this.endCover();
    if (this.summary !== null && depth === this.summary.depth) {
      this.summary = null;
      return;
    }
    if (name === 'table-group' && this.openGroups.at(-1)?.depth === depth) this.openGroups.pop();
    if (name === 'thead' && this.thead > 0) this.thead--;
    if (isSection(name)) {
      this.boundary();
      const at = this.openSections.findLastIndex((open) => open.depth === depth);
      // Sections opened inside this one and never closed end with it.
      if (at !== -1) while (this.openSections.length > at) this.closeSection();
      return;
    }
    if (name === 'tr') {
      const at = this.rows.findLastIndex((row) => row.depth === depth);
      if (at === -1) return;
      // Rows opened inside this one and never closed end with it.
      while (this.rows.length > at) this.emitRow(this.rows.pop()!);
    } else if (CELLS.has(name)) {
      const row = this.rows.at(-1);
      if (row !== undefined && row.cell !== null && row.cell.depth === depth) finishCell(row);
    } else if (isBlock(name)) {
      this.boundary();
    }
    if (name === 'table' && this.table !== null && this.table.depth === depth) this.closeTable();
  }

  finish(): DartDocument {
    this.flushText();
    if (this.capture !== null) this.endCapture();
    while (this.rows.length > 0) this.emitRow(this.rows.pop()!);
    if (this.table !== null) this.closeTable();
    this.breakLine();
    while (this.openSections.length > 0) this.closeSection();
    const header: DartLine[] = [this.name, this.company].filter((text) => text !== '').map((text) => ({ text, section: -1, table: -1 }));
    // The header names come first; every recorded position moves down by as many lines.
    const shift = header.length;
    for (const table of this.tables) {
      if (table.cover) continue;
      table.firstLine += shift;
      table.endLine += shift;
    }
    for (const section of this.sections) {
      section.firstLine += shift;
      section.endLine += shift;
    }
    return {
      name: this.name,
      formCode: this.formCode,
      company: this.company,
      extractions: this.extractions,
      lines: [...header, ...this.lines],
      coverLines: this.coverLines,
      tables: this.tables,
      sections: this.sections,
    };
  }

  private openSection(name: string): void {
    this.boundary();
    const level = Number(SECTION_TAG.exec(name)![1]);
    const index = this.sections.length;
    this.sections.push({
      index,
      level,
      title: '',
      parent: this.currentSection(),
      firstLine: this.lines.length,
      endLine: this.lines.length,
    });
    this.openSections.push({ index, depth: this.depth });
  }

  private closeSection(): void {
    const open = this.openSections.pop()!;
    this.sections[open.index].endLine = this.lines.length;
  }

  private currentSection(): number {
    return this.openSections.at(-1)?.index ?? -1;
  }

  private endCapture(): void {
    const capture = this.capture!;
    this.capture = null;
    const text = collapse(capture.text);
    switch (capture.kind) {
      case 'document-name':
        this.name = text;
        this.formCode = capture.code ?? null;
        return;
      case 'company-name':
        this.company = text;
        return;
      case 'extraction':
        if (capture.code !== undefined) this.extractions.set(capture.code, text);
        return;
      case 'title': {
        const section = this.currentSection();
        if (section !== -1 && this.sections[section].title === '') this.sections[section].title = text;
        this.line += capture.text;
        this.boundary();
      }
    }
  }

  private endCover(): void {
    this.boundary();
    this.cover = null;
  }

  private openTable(): void {
    this.boundary();
    const record: DartTable = {
      index: this.tables.length,
      section: this.currentSection(),
      group: this.openGroups.at(-1)?.aclass ?? null,
      caption: this.caption,
      rows: [],
      cover: this.cover !== null,
      firstLine: this.lines.length,
      endLine: this.lines.length,
    };
    this.tables.push(record);
    this.table = { record, depth: this.depth };
  }

  private closeTable(): void {
    const { record } = this.table!;
    this.table = null;
    record.endLine = record.cover ? record.firstLine : this.lines.length;
  }

  private openCell(): CellDraft | null {
    return this.rows.at(-1)?.cell ?? null;
  }

  private flushText(): void {
    if (this.raw === '') return;
    const text = this.raw.includes('&') ? decodeDartEntities(this.raw) : this.raw;
    this.raw = '';
    if (this.capture !== null) {
      this.capture.text += text;
      return;
    }
    if (this.summary !== null) return;
    const row = this.rows.at(-1);
    if (row === undefined) {
      this.line += text;
    } else if (row.cell !== null) {
      row.cell.text += text;
    } else if (text.trim() !== '') {
      // Text between the cells of a row: kept as a cell of its own.
      row.cell = { ...newCell('td', {}, -1), text };
    }
  }

  /** A block starts or ends: a new line, or a space inside a table cell. */
  private boundary(): void {
    const row = this.rows.at(-1);
    if (row === undefined) return this.breakLine();
    if (row.cell !== null) {
      row.cell.text += ' ';
      return;
    }
    if (row.depth === -1) {
      this.endLooseCells();
      this.breakLine();
    }
  }

  /** Cells found outside any TR form a row of their own, ended by the next block. */
  private endLooseCells(): void {
    const row = this.rows.at(-1);
    if (row !== undefined && row.depth === -1) this.emitRow(this.rows.pop()!);
  }

  private emitRow(row: RowDraft): void {
    if (row.cell !== null) finishCell(row);
    const cells: DartCell[] = row.cells.map(({ depth: _depth, ...cell }) => cell);
    // Empty cells (spacers, the blank half of merged cells) would only add separators to the text.
    const text = cells
      .map((cell) => cell.text)
      .filter((cell) => cell !== '')
      .join(' | ');
    const outer = this.rows.at(-1);
    // A table inside a cell: its rows become part of that cell.
    if (outer !== undefined && outer.cell !== null) {
      if (text !== '') outer.cell.text += ` ${text} `;
      return;
    }
    if (this.table !== null && cells.length > 0) this.table.record.rows.push({ cells, head: row.head });
    if (text === '') return;
    this.breakLine();
    this.pushLine(text, this.table?.record.index ?? -1);
  }

  private breakLine(): void {
    const text = this.line;
    this.line = '';
    // DART's &cr; is a line break inside a block.
    for (const part of text.split(LINE_SEPARATOR)) {
      const collapsed = collapse(part);
      if (collapsed !== '') this.pushLine(collapsed, -1);
    }
  }

  private pushLine(text: string, table: number): void {
    if (this.cover !== null || this.summary !== null) {
      this.coverLines.push(text);
      return;
    }
    if (table === -1) this.caption = text;
    this.lines.push({ text, section: this.currentSection(), table });
  }
}

function newCell(tag: DartCell['tag'], attributes: Record<string, string>, depth: number): CellDraft {
  const adelim = attributes.adelim === undefined ? undefined : Number(attributes.adelim);
  return {
    text: '',
    tag,
    acode: attributes.acode,
    aunit: attributes.aunit,
    aunitValue: attributes.aunitvalue,
    adelim: Number.isInteger(adelim) ? adelim : undefined,
    colSpan: span(attributes.colspan),
    rowSpan: span(attributes.rowspan),
    input: false,
    depth,
  };
}

/** COLSPAN / ROWSPAN as written; anything not a small positive integer is 1. */
function span(value: string | undefined): number {
  const count = value === undefined ? 1 : Number(value);
  return Number.isInteger(count) && count >= 1 && count <= 1000 ? count : 1;
}

function finishCell(row: RowDraft): void {
  const cell = row.cell!;
  row.cells.push({ ...cell, text: collapse(cell.text) });
  row.cell = null;
}

/** Whitespace (with no-break and ideographic spaces, and zero-width marks) to one space, trimmed. */
function collapse(text: string): string {
  return text.replace(/(?:\s|\u200b|\u200c|\u200d|\u2060)+/g, ' ').trim();
}

/** The plain text of DART markup (see `parseDartDocument`). */
export function markupToText(markup: string): string {
  return documentText(parseDartDocument(markup));
}
