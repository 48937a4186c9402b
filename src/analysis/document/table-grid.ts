import type { DartCell, DartTable } from './dart-document';

/** One position of a table's grid and the cell that covers it. */
export interface GridSlot {
  cell: DartCell;
  /** The position is in the cell's first row (not a row a ROWSPAN carried it into). */
  top: boolean;
  /** The position is in the cell's first column (not a column a COLSPAN carried it into). */
  left: boolean;
}

export interface GridRow {
  /** Index of the row in `DartTable.rows`. */
  index: number;
  head: boolean;
  /** One entry a column; undefined where no cell reaches. */
  slots: Array<GridSlot | undefined>;
}

export interface TableGrid {
  width: number;
  rows: GridRow[];
}

/** Wider grids are malformed spans, not tables: columns past this are dropped. */
const MAX_COLUMNS = 256;

/**
 * A table laid out as a grid, the way a browser places it: every cell takes the first free column
 * of its row, and spans (COLSPAN, ROWSPAN) fill the positions to their right and below. So a value
 * is read under the header that stands above it, even when the row left its empty cells out of the
 * text, and a row label spanning several rows (`2. 계약내역` over four rows) is found in each.
 */
export function tableGrid(table: DartTable): TableGrid {
  const rows: GridRow[] = table.rows.map((row, index) => ({ index, head: row.head, slots: [] }));
  let width = 0;
  table.rows.forEach((row, r) => {
    let column = 0;
    for (const cell of row.cells) {
      while (column < MAX_COLUMNS && rows[r].slots[column] !== undefined) column++;
      if (column >= MAX_COLUMNS) break;
      const lastRow = Math.min(rows.length, r + cell.rowSpan);
      const lastColumn = Math.min(MAX_COLUMNS, column + cell.colSpan);
      for (let y = r; y < lastRow; y++) {
        for (let x = column; x < lastColumn; x++) {
          // A later row's own cell may already sit where a long ROWSPAN reaches: the first one placed keeps it.
          rows[y].slots[x] ??= { cell, top: y === r, left: x === column };
        }
      }
      width = Math.max(width, lastColumn);
      column = lastColumn;
    }
  });
  // Dense rows: a position no cell reaches is an explicit undefined, not a hole.
  for (const row of rows) row.slots = Array.from({ length: width }, (_, column) => row.slots[column]);
  return { width, rows };
}

/** The distinct cells of a run of slots, in order (a spanning cell counts once). */
export function distinctCells(slots: ReadonlyArray<GridSlot | undefined>): DartCell[] {
  const cells: DartCell[] = [];
  for (const slot of slots) if (slot !== undefined && !cells.includes(slot.cell)) cells.push(slot.cell);
  return cells;
}
