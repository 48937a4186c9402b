// Reading a filing's plain text without a model: segments (sentences and table rows) in document
// order. The document text renders a table row as one line whose cells are separated by ' | '
// (tabs and runs of spaces are read as separators too), so both shapes are handled. Numbers are
// never read from here: the facts come from the document's structure (src/analysis/facts/).

/** A sentence of prose or one table row, in document order. */
export interface Segment {
  index: number;
  /** Cells of a table row; a sentence is one cell. */
  cells: string[];
  text: string;
  isTableRow: boolean;
}

const CELL_SEPARATOR = /\t+|\s*[|│]\s*|\s{3,}/;
/** A sentence ends at . ? ! followed by space, except after a digit (1. 2.5 2025. 3.). */
const SENTENCE_END = /(?<=[^\d\s][.?!。])\s+/;

export function splitSegments(text: string): Segment[] {
  const segments: Segment[] = [];
  const lines = text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00a0\u3000]/g, ' ')
    .split('\n');
  for (const rawLine of lines) {
    const cells = rawLine
      .replace(/^\s*[-•·○◦▶]\s+/, '')
      .split(CELL_SEPARATOR)
      .map((cell) => cell.replace(/\s+/g, ' ').trim())
      .filter((cell) => cell !== '' && cell !== '-');
    if (cells.length === 0) continue;
    if (cells.length > 1) {
      segments.push({ index: segments.length, cells, text: cells.join(' | '), isTableRow: true });
      continue;
    }
    for (const sentence of cells[0].split(SENTENCE_END)) {
      const trimmed = sentence.trim();
      if (trimmed !== '') segments.push({ index: segments.length, cells: [trimmed], text: trimmed, isTableRow: false });
    }
  }
  return segments;
}

/** Particles and numbering at the edges of a label: "1. 매출액은" → "매출액". */
function cleanLabel(label: string): string {
  return label
    .replace(/^\s*(?:\d+|[가-하]|[①-⑳])[.)]\s*/, '')
    .replace(/[\s:·,]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A segment as a readable line: a sentence as it is, a form row as "name: value, value" (the cells as written). */
export function renderSegment(segment: Segment): string {
  if (!segment.isTableRow) return segment.text;
  const [head, ...rest] = segment.cells.map(cleanLabel).filter((cell) => cell !== '');
  return rest.length > 0 ? `${head}: ${rest.join(', ')}` : (head ?? segment.text);
}
