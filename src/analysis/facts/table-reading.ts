import type { DartDocument, DartTable } from '../document/dart-document';
import { type GridRow, type TableGrid, distinctCells } from '../document/table-grid';
import { declaredUnit } from './amounts';

// Reading a table the way its filer meant it: which rows are its header, which unit its amounts are
// in, what each row is called.

/** Lines before a table that may still declare its unit ("(단위 : 백만원)" in a table of its own). */
const UNIT_LOOKBACK_LINES = 4;

/**
 * The unit of a table's amounts: declared in the table itself (a header cell, or the tagged TU
 * "(단위 : 원)"), else in the lines just before it in the same section (a one-cell table or a
 * caption). Null when nothing close declares one.
 */
export function tableUnit(document: DartDocument, table: DartTable): string | null {
  for (const row of table.rows.slice(0, 3)) {
    for (const cell of row.cells) {
      const unit = declaredUnit(cell.text);
      if (unit !== null) return unit;
    }
  }
  if (table.cover || table.firstLine === table.endLine) return null;
  for (let at = table.firstLine - 1; at >= Math.max(0, table.firstLine - UNIT_LOOKBACK_LINES); at--) {
    const line = document.lines[at];
    if (line.section !== table.section) break;
    const unit = declaredUnit(line.text);
    if (unit !== null) return unit;
  }
  return null;
}

/** The header rows of a grid: THEAD rows, else the leading rows (at most three) that hold no amount. */
export function headerRows(grid: TableGrid, isValue: (text: string) => boolean): GridRow[] {
  const head = grid.rows.filter((row) => row.head);
  if (head.length > 0) return head;
  const leading: GridRow[] = [];
  for (const row of grid.rows.slice(0, 3)) {
    const cells = distinctCells(row.slots.slice(1));
    if (cells.some((cell) => isValue(cell.text))) break;
    if (cells.every((cell) => cell.text === '')) break;
    leading.push(row);
  }
  return leading;
}

/** What the header says above each column: the distinct texts of the header cells covering it, top to bottom. */
export function columnHeaders(grid: TableGrid, header: readonly GridRow[]): string[] {
  return Array.from({ length: grid.width }, (_, column) =>
    distinctCells(header.map((row) => row.slots[column]))
      .map((cell) => cell.text)
      .filter((text) => text !== '')
      .join(' '),
  );
}

/**
 * A row's name, cleaned for matching: numbering ("Ⅰ.", "1.", "(1)", "가.", "ㆍ"), note references
 * ("(주석 4,26)", "(주4)") and every space removed. "Ⅳ. 영업이익(손실)" → "영업이익(손실)".
 */
export function cleanRowLabel(label: string): string {
  return label
    .replace(/\((?:주석|주|注)\s*[\d,.\s~-]*\)/g, '')
    .replace(/\s/g, '')
    .replace(/^[[\]ㆍ·•∙\-*※]+/, '')
    .replace(/^(?:(?:[IVXⅠ-Ⅻ]+|\d{1,2}|[가-하])[.)]|\(\d{1,2}\)|\([가-하]\)|[①-⑳])/, '')
    .replace(/[\]:：]+$/, '');
}
