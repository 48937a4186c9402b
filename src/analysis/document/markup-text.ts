import { decodeHTMLStrict } from 'entities';
import { Parser } from 'htmlparser2';

/** Elements that never hold anything, whether or not the markup closes them (`<BR>`, `<BR/>`, `<BR></BR>`). */
const VOID_ELEMENTS = new Set(['br', 'pgbrk', 'hr', 'col', 'meta', 'link', 'wbr']);
/** Table cells of dart4: TD and TH, TE (a cell holding a figure) and TU (a cell holding a unit or choice). */
const CELLS = new Set(['td', 'th', 'te', 'tu']);
/** Elements that start and end a line of text. Unknown elements are inline: their text is kept in the flow. */
const BLOCKS = new Set([
  'document', 'document-name', 'company-name', 'body', 'part', 'library', 'title', 'p', 'div', 'br', 'pgbrk', 'hr',
  'table', 'table-group', 'thead', 'tbody', 'tfoot', 'caption', 'image', 'img-caption', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'blockquote', 'pre',
]);
/** Formatting that may sit inside text-only elements without ending them. */
const INLINE_FORMATTING = new Set(['span', 'a', 'b', 'i', 'u', 'em', 'strong', 'font', 'sup', 'sub', 'br']);

const isSection = (name: string): boolean => name.startsWith('section-') && /^section-\d+$/.test(name);
const isBlock = (name: string): boolean => BLOCKS.has(name) || isSection(name);

/**
 * Elements whose text is dropped, each with the elements that end the drop when the markup never
 * closes it: an unclosed `<COVER>` must not swallow the document, so the first section ends it.
 */
const DROPPED: ReadonlyMap<string, (opening: string) => boolean> = new Map([
  // The printed cover repeats the company's name, address and signatory: no content.
  ['cover', (opening: string) => isSection(opening) || opening === 'part' || opening === 'library'],
  // Machine-read metadata: form version, extraction values.
  ['summary', (opening: string) => opening === 'body' || opening === 'cover' || isSection(opening)],
  ['formula-version', (opening: string) => !INLINE_FORMATTING.has(opening)],
  ['cover-title', (opening: string) => !INLINE_FORMATTING.has(opening)],
  // Image file names; the caption (IMG-CAPTION) is kept.
  ['img', (opening: string) => !INLINE_FORMATTING.has(opening)],
  // HTML attachments.
  ['head', (opening: string) => opening === 'body'],
  ['style', (opening: string) => !INLINE_FORMATTING.has(opening)],
  ['script', (opening: string) => !INLINE_FORMATTING.has(opening)],
]);

/** `<` that cannot start a tag ("영업이익 < 0", "<주석>") is text: escaped so the tokenizer does not take it for one. */
const STRAY_LESS_THAN = /<(?![A-Za-z]|\/[A-Za-z]|[!?])/g;

/** htmlparser2 in XML mode (no HTML rules for TITLE or P), with our void elements. */
class DartMarkupParser extends Parser {
  protected override isVoidElement(name: string): boolean {
    return VOID_ELEMENTS.has(name);
  }
}

interface Row {
  cells: string[];
  /** Text of the cell being read; null between cells. */
  cell: string | null;
  /** Depth of the element that opened the current cell (-1 for text outside any cell). */
  cellDepth: number;
  /** Depth of the TR; -1 for cells found outside any TR. */
  depth: number;
}

/**
 * Plain text of a DART document (dart4 markup, HTML-like, often not well-formed). Never throws on
 * bad markup: unclosed and mismatched tags are closed where the parser can tell, tag case is ignored,
 * unknown entities and stray `&` stay as written.
 *
 * - dropped: the cover (COVER, COVER-TITLE…), SUMMARY, FORMULA-VERSION, image file names, comments,
 *   processing instructions, HTML head/style/script;
 * - one line per block (P, TITLE, SECTION-n, BR, TABLE, headings…) and per table row, the non-empty
 *   cells of a row joined with ' | ' (blocks inside a cell become spaces, a nested table's rows join its cell);
 * - entities decoded, whitespace collapsed to single spaces, lines trimmed, empty lines dropped.
 */
export function markupToText(markup: string): string {
  const collector = new TextCollector();
  const parser = new DartMarkupParser(
    {
      onopentagname: (name) => collector.open(name),
      onclosetag: (name) => collector.close(name),
      ontext: (text) => collector.text(text),
    },
    // Entities are decoded by the collector: the XML mode would know only the five XML ones, and DART uses &nbsp; too.
    { xmlMode: true, lowerCaseTags: true, decodeEntities: false, recognizeSelfClosing: true },
  );
  parser.end(markup.replace(STRAY_LESS_THAN, '&lt;'));
  return collector.finish();
}

class TextCollector {
  private readonly lines: string[] = [];
  private line = '';
  /** Text not yet decoded: entities may arrive split over several text events. */
  private raw = '';
  /** Open elements; the parser reports every close, implied or written, so this mirrors its stack. */
  private depth = 0;
  private dropping: { depth: number; endedBy: (opening: string) => boolean } | null = null;
  private readonly rows: Row[] = [];

  text(text: string): void {
    if (this.dropping === null) this.raw += text;
  }

  open(name: string): void {
    this.flushText();
    this.depth++;
    if (this.dropping !== null) {
      if (!this.dropping.endedBy(name)) return;
      this.dropping = null;
    }
    const endedBy = DROPPED.get(name);
    if (endedBy !== undefined) {
      this.dropping = { depth: this.depth, endedBy };
      return;
    }
    if (name === 'tr') {
      this.endLooseCells();
      this.rows.push({ cells: [], cell: null, cellDepth: -1, depth: this.depth });
    } else if (CELLS.has(name)) {
      let row = this.rows.at(-1);
      if (row === undefined) {
        row = { cells: [], cell: null, cellDepth: -1, depth: -1 };
        this.rows.push(row);
      }
      // A cell opening before the previous one closed (`<TD>a<TD>b`) ends it.
      if (row.cell !== null) finishCell(row);
      row.cell = '';
      row.cellDepth = this.depth;
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
    if (name === 'tr') {
      const at = this.rows.findLastIndex((row) => row.depth === depth);
      if (at === -1) return;
      // Rows opened inside this one and never closed end with it.
      while (this.rows.length > at) this.emitRow(this.rows.pop()!);
    } else if (CELLS.has(name)) {
      const row = this.rows.at(-1);
      if (row !== undefined && row.cell !== null && row.cellDepth === depth) finishCell(row);
    } else if (isBlock(name)) {
      this.boundary();
    }
  }

  finish(): string {
    this.flushText();
    while (this.rows.length > 0) this.emitRow(this.rows.pop()!);
    this.breakLine();
    return this.lines.join('\n');
  }

  private flushText(): void {
    if (this.raw === '') return;
    const text = this.raw.includes('&') ? decodeHTMLStrict(this.raw) : this.raw;
    this.raw = '';
    const row = this.rows.at(-1);
    if (row === undefined) {
      this.line += text;
    } else if (row.cell !== null) {
      row.cell += text;
    } else if (text.trim() !== '') {
      // Text between the cells of a row: kept as a cell of its own.
      row.cell = text;
      row.cellDepth = -1;
    }
  }

  /** A block starts or ends: a new line, or a space inside a table cell. */
  private boundary(): void {
    const row = this.rows.at(-1);
    if (row === undefined) return this.breakLine();
    if (row.cell !== null) {
      row.cell += ' ';
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

  private emitRow(row: Row): void {
    if (row.cell !== null) finishCell(row);
    // Empty cells (spacers, the blank half of merged cells) would only add separators.
    const cells = row.cells.filter((cell) => cell !== '');
    if (cells.length === 0) return;
    const text = cells.join(' | ');
    const outer = this.rows.at(-1);
    // A table inside a cell: its rows become part of that cell.
    if (outer !== undefined && outer.cell !== null) {
      outer.cell += ` ${text} `;
      return;
    }
    this.breakLine();
    this.lines.push(text);
  }

  private breakLine(): void {
    const text = collapse(this.line);
    if (text !== '') this.lines.push(text);
    this.line = '';
  }
}

function finishCell(row: Row): void {
  row.cells.push(collapse(row.cell ?? ''));
  row.cell = null;
}

/** Whitespace (with no-break and ideographic spaces, and zero-width marks) to one space, trimmed. */
function collapse(text: string): string {
  return text.replace(/(?:\s|\u200b|\u200c|\u200d|\u2060)+/g, ' ').trim();
}
