import type { DartCell, DartDocument } from '../document/dart-document';
import { type GridRow, type GridSlot, type TableGrid, distinctCells, tableGrid } from '../document/table-grid';
import { declaredUnit, labelUnit, parseAmount } from './amounts';
import { parseDate } from './periods';
import { columnHeaders } from './table-reading';

// The fields of a decision form (주요사항보고서, the exchange's 수시공시 forms): every value the
// filer entered, with the names its row and column give it. The form's rows name the fields
// ("2. 계약내역 | 계약금액(원) | 22,764,764,160,000"), so the names are read, not guessed.

export interface FormField {
  /** The names leading to the value, outermost first: ["2. 계약내역", "계약금액(원)"]. */
  path: string[];
  /** The value as written. */
  text: string;
  /** The filer's field code (TE ACODE, TU AUNIT) when it tagged the cell. */
  code: string | null;
  /** The value as a number, or a date (ISO), when it is one. */
  number: number | null;
  date: string | null;
  /** The unit the path or the table declares: 원, 주, %, 원/주… */
  unit: string | null;
  table: number;
}

/** Form tables that only restate a correction (정정사항: 정정전 | 정정후) hold old values: they are skipped. */
const CORRECTION_TABLE = /정정\s*전|정정\s*후|정정\s*사항|정정\s*항목/;

/**
 * The fields of every table of a form, in document order. A value is a cell the filer entered
 * (TE/TU of DART's forms, the exchange's input fields), else a number, a date or the last cell of
 * its row; the label cells before it in its row (spanning ones included) and the column's header
 * name it. Cover tables and correction tables are left out.
 */
export function formFields(document: DartDocument): FormField[] {
  const fields: FormField[] = [];
  for (const table of document.tables) {
    if (table.cover) continue;
    if (table.rows.some((row) => row.cells.some((cell) => CORRECTION_TABLE.test(cell.text)))) continue;
    const grid = tableGrid(table);
    const marked = table.rows.some((row) => row.cells.some((cell) => isEntered(cell)));
    // A form laid out in columns (구분 | 당기실적 | 전기실적 …) names its values by a header row: THEAD, or in a
    // form whose entries are marked, the leading rows with no entry.
    const header = grid.rows.some((row) => row.head) ? grid.rows.filter((row) => row.head) : marked ? leadingUnmarked(grid) : [];
    const headers = grid.width >= 3 ? columnHeaders(grid, header) : [];
    const unit = declaredUnit(table.caption) ?? tableDeclaredUnit(table.rows.flatMap((row) => row.cells));
    for (const row of grid.rows) {
      if (header.includes(row)) continue;
      fields.push(...rowFields(row.slots, headers, marked, unit, table.index));
    }
  }
  return fields;
}

function isEntered(cell: DartCell): boolean {
  return cell.tag === 'te' || cell.tag === 'tu' || cell.input;
}

/** Leading rows with no entry and at least three names: a header, not a note spanning the table. */
function leadingUnmarked(grid: TableGrid): GridRow[] {
  const rows: GridRow[] = [];
  for (const row of grid.rows.slice(0, 3)) {
    if (row.slots.some((slot) => slot !== undefined && isEntered(slot.cell))) break;
    if (distinctCells(row.slots).filter((cell) => cell.text !== '').length < 3) break;
    rows.push(row);
  }
  return rows.length === grid.rows.length ? [] : rows;
}

function tableDeclaredUnit(cells: readonly DartCell[]): string | null {
  for (const cell of cells) {
    const unit = declaredUnit(cell.text);
    if (unit !== null) return unit;
  }
  return null;
}

function rowFields(
  slots: ReadonlyArray<GridSlot | undefined>,
  headers: readonly string[],
  marked: boolean,
  tableUnit: string | null,
  table: number,
): FormField[] {
  const fields: FormField[] = [];
  const seen = new Set<DartCell>();
  /** The names before the row's first value: the row's own (and its groups', through ROWSPAN). */
  let rowNames: string[] | null = null;
  /** The names since the last value. */
  let names: string[] = [];
  const placed = slots.map((slot, column) => ({ slot, column })).filter(({ slot }) => slot !== undefined && slot.cell.text !== '');
  for (const [position, { slot, column }] of placed.entries()) {
    const cell = slot!.cell;
    if (seen.has(cell)) continue;
    seen.add(cell);
    if (!isValueCell(cell, marked, position === placed.length - 1, names.length > 0)) {
      names.push(cell.text);
      continue;
    }
    const first = rowNames === null;
    rowNames ??= names;
    const header = headers[column] ?? '';
    // A table in columns names a value by its row and its column: 매출액 > 당해실적 > 전년동기실적.
    // Otherwise names after a value share the row's outer names: "8. 보유현황 | 취득(주) | 9,539,559 | 비율(%) | 5.93"
    // names 5.93 "8. 보유현황 > 비율(%)".
    const path = header !== '' ? [...rowNames, ...(first ? [] : names), header] : first ? names : [...rowNames.slice(0, -1), ...names];
    names = [];
    if (path.length === 0) continue;
    fields.push({
      path,
      text: cell.text,
      code: cell.acode ?? cell.aunit ?? null,
      number: parseAmount(cell.text),
      date: cell.aunitValue !== undefined ? (parseDate(cell.aunitValue) ?? parseDate(cell.text)) : parseDate(cell.text),
      unit: pathUnit(path) ?? tableUnit,
      table,
    });
  }
  return fields;
}

/** A value: what the filer entered (TE, TU, an input field) in a marked form; in an unmarked one, a number, a date or the row's last cell. */
function isValueCell(cell: DartCell, marked: boolean, last: boolean, named: boolean): boolean {
  if (marked) return isEntered(cell);
  if (parseAmount(cell.text) !== null || parseDate(cell.text) !== null || cell.text === '-') return named;
  return last && named;
}

/** The innermost unit the path declares: "취득예정금액(원) > 보통주식" is in 원. */
function pathUnit(path: readonly string[]): string | null {
  for (let at = path.length - 1; at >= 0; at--) {
    const unit = labelUnit(path[at]) ?? declaredUnit(path[at]);
    if (unit !== null) return unit;
  }
  return null;
}
