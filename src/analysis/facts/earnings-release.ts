import type { DartDocument } from '../document/dart-document';
import { type GridRow, distinctCells, tableGrid } from '../document/table-grid';
import { isMoneyUnit, parseAmount } from './amounts';
import type { FactPeriod, FinancialFact, FinancialItem } from './filing-facts.types';
import { parseDate, yearEarlier } from './periods';
import { cleanRowLabel, columnHeaders, tableUnit } from './table-reading';

// The exchange's preliminary earnings form (영업(잠정)실적, 연결재무제표기준영업(잠정)실적): a table of
// 매출액, 영업이익, 당기순이익, each with the quarter (당해실적) and the year to date (누계실적), in
// columns 당기실적 | 전기실적 | 전기대비증감율 | 전년동기실적 | 전년동기대비증감율.

const ITEMS: ReadonlyArray<readonly [FinancialItem, RegExp]> = [
  ['revenue', /^(매출액|매출|영업수익)$/],
  ['operating_profit', /^영업(이익|손실|손익)(\((이익|손실)\))?$/],
  ['net_profit', /^당기순(이익|손실|손익)(\((이익|손실)\))?$/],
];

const QUARTER_ROW = /^당해실적$/;

/**
 * The quarter's main lines and the same quarter a year earlier, with the period the form states
 * (실적기간) or its header names ("(26.2Q)"). Null when the document holds no such table.
 */
export function readEarningsRelease(
  document: DartDocument,
  reportName: string,
): { financials: FinancialFact[]; period: FactPeriod | null } | null {
  const table = document.tables.find(
    (candidate) => !candidate.cover && candidate.rows.some((row) => row.cells.some((cell) => QUARTER_ROW.test(cleanRowLabel(cell.text)))),
  );
  if (table === undefined) return null;
  const unit = tableUnit(document, table);
  const grid = tableGrid(table);
  const firstData = grid.rows.findIndex((row) =>
    row.slots.some((slot) => slot !== undefined && QUARTER_ROW.test(cleanRowLabel(slot.cell.text))),
  );
  const headers = columnHeaders(grid, grid.rows.slice(0, firstData));
  const current = headers.findIndex((text) => /당기\s*실적/.test(text) && !/누계/.test(text));
  const prior = headers.findIndex((text) => /전년\s*동기\s*실적/.test(text));
  // The form's own change on the same quarter a year earlier (its rounding is the filer's, not ours).
  const change = headers.findIndex((text) => /전년\s*동기\s*대비.*증감/.test(text) && !/전환/.test(text));
  const stated = statedPeriods(document);
  const period = stated.current ?? quarterInHeader(headers[current] ?? '');
  if (!isMoneyUnit(unit) || current === -1 || period === null) return { financials: [], period };
  const priorPeriod = stated.prior ?? yearEarlier(period);
  const consolidated = /연결/.test(`${reportName} ${document.name}`);
  const financials: FinancialFact[] = [];
  for (const row of grid.rows.slice(firstData)) {
    const line = lineOf(row);
    if (line === null || financials.some((fact) => fact.item === line.item)) continue;
    const statedChange = change === -1 ? null : parseAmount(row.slots[change]?.cell.text ?? '');
    for (const [term, column, termPeriod] of [
      ['current', current, period],
      ['prior', prior, priorPeriod],
    ] as const) {
      const amount = column === -1 ? null : parseAmount(row.slots[column]?.cell.text ?? '');
      if (amount === null) continue;
      const fact: FinancialFact = {
        item: line.item,
        label: line.label,
        value: line.loss ? -amount : amount,
        unit,
        term,
        period: termPeriod,
        consolidated,
        source: 'table',
      };
      if (term === 'current' && statedChange !== null) fact.statedChange = statedChange;
      financials.push(fact);
    }
  }
  return { financials, period };
}

/** A 당해실적 row's line: the name in its first column (a ROWSPAN carries it to the 누계실적 row, which is not read). */
function lineOf(row: GridRow): { item: FinancialItem; label: string; loss: boolean } | null {
  const cells = distinctCells(row.slots);
  if (!cells.some((cell) => QUARTER_ROW.test(cleanRowLabel(cell.text)))) return null;
  const label = cleanRowLabel(cells[0]?.text ?? '');
  const item = ITEMS.find(([, pattern]) => pattern.test(label))?.[0];
  return item === undefined ? null : { item, label, loss: /^[^(]*손실/.test(label) };
}

/** The form's 실적기간 table: "당기실적 | 2026-04-01 | ~ | 2026-06-30", "전년동기실적 | …". */
function statedPeriods(document: DartDocument): { current: FactPeriod | null; prior: FactPeriod | null } {
  const found: { current: FactPeriod | null; prior: FactPeriod | null } = { current: null, prior: null };
  for (const table of document.tables) {
    for (const row of table.rows) {
      const name = cleanRowLabel(row.cells[0]?.text ?? '');
      const term = name === '당기실적' ? 'current' : name === '전년동기실적' ? 'prior' : null;
      if (term === null || found[term] !== null) continue;
      const dates = row.cells
        .slice(1)
        .map((cell) => parseDate(cell.text))
        .filter((date): date is string => date !== null);
      if (dates.length === 2 && dates[0] < dates[1]) found[term] = { from: dates[0], to: dates[1] };
    }
  }
  return found;
}

/** "(26.2Q)", "('18.4Q)", "(2023년 3분기)": the calendar quarter the column is of. */
function quarterInHeader(header: string): FactPeriod | null {
  const short = /'?(\d{2})\.\s*([1-4])\s*Q/.exec(header);
  const long = /(\d{4})\s*년\s*([1-4])\s*분기/.exec(header);
  const match = short ?? long;
  if (match === null) return null;
  const year = (short === null ? 0 : 2000) + Number(match[1]);
  const quarter = Number(match[2]);
  const from = new Date(Date.UTC(year, (quarter - 1) * 3, 1)).toISOString().slice(0, 10);
  const to = new Date(Date.UTC(year, quarter * 3, 0)).toISOString().slice(0, 10);
  return { from, to };
}
