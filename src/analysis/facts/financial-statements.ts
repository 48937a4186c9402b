import type { DartCell, DartDocument, DartTable } from '../document/dart-document';
import { type GridRow, type TableGrid, distinctCells, tableGrid } from '../document/table-grid';
import { isMoneyUnit, parseAmount } from './amounts';
import type { FactPeriod, FinancialFact, FinancialItem, ReportFamily } from './filing-facts.types';
import { balanceDate, yearEarlier } from './periods';
import { cleanRowLabel, columnHeaders, headerRows, tableUnit } from './table-reading';

// The main lines of a report's financial statements (revenue, operating profit, net profit, total
// assets) for this period and the one before, read from the statements' own columns: a number is
// taken only under a header that names its period, never from a note column or from prose.

/** The K-GAAP chart of accounts filers tag statement rows with (TE ACODE): code prefix → line, and whether it is the loss variant. */
const ACCOUNT_CODES: ReadonlyArray<readonly [string, FinancialItem, boolean]> = [
  ['1210000001', 'revenue', false],
  ['1250000001', 'operating_profit', false],
  ['1250000002', 'operating_profit', true],
  ['1290000001', 'net_profit', false],
  ['1290000002', 'net_profit', true],
  ['1150000001', 'total_assets', false],
];

/** Row names (cleaned, see cleanRowLabel) of each line; sub-lines (상품매출액, 용역매출) never match. */
const ROW_NAMES: ReadonlyArray<readonly [FinancialItem, RegExp]> = [
  ['revenue', /^(매출액|매출|영업수익|수익|수익\(매출액\)|매출액\(수익\)|영업수익\(매출액\)|매출액\(영업수익\)|매출및지분법손익)$/],
  ['operating_profit', /^영업(이익|손실|손익)(\((이익|손실)\))?$/],
  ['net_profit', /^(연결)?(총)?(당기|반기|분기)(연결)?순(이익|손실|손익)(\((이익|손실)\))?$/],
  ['total_assets', /^(자산총계|자산총액|총자산|자산합계)$/],
];

const FINANCIAL_ITEMS: readonly FinancialItem[] = ['revenue', 'operating_profit', 'net_profit', 'total_assets'];

/** Which columns hold this period's and the prior period's amounts, and which hold the row's name. */
interface PeriodColumns {
  current: number[];
  prior: number[];
  label: number[];
}

/**
 * Reads the four main lines from the first statement tables that state them, in document order:
 * periodic reports from III. 재무에 관한 사항 (the summary first, consolidated before separate),
 * audit reports from the attached statements (not the notes). A line whose table states no money
 * unit, or whose columns name no period, is not read; so is everything when the period is unknown.
 */
export function readFinancials(document: DartDocument, family: ReportFamily, period: FactPeriod | null): FinancialFact[] {
  if (period === null) return [];
  const found = new Map<FinancialItem, FinancialFact[]>();
  for (const table of statementTables(document, family)) {
    if (found.size === FINANCIAL_ITEMS.length) break;
    const unit = tableUnit(document, table);
    if (!isMoneyUnit(unit)) continue;
    const grid = tableGrid(table);
    const columns = periodColumns(grid, period);
    if (columns === null) continue;
    const consolidated = /연결/.test(`${table.caption} ${sectionTitles(document, table.section)}`);
    for (const row of grid.rows) {
      if (row.head) continue;
      const line = lineOf(row, columns);
      if (line === null || found.has(line.item)) continue;
      const facts: FinancialFact[] = [];
      for (const term of ['current', 'prior'] as const) {
        const amount = amountIn(row, columns[term]);
        if (amount === null) continue;
        const value = line.loss ? -amount : amount;
        const factPeriod = line.item === 'total_assets' ? balanceDate(period, term) : term === 'current' ? period : yearEarlier(period);
        facts.push({ item: line.item, label: line.label, value, unit, term, period: factPeriod, consolidated, source: line.source });
      }
      if (facts.some((fact) => fact.term === 'current')) found.set(line.item, facts);
    }
  }
  return FINANCIAL_ITEMS.flatMap((item) => found.get(item) ?? []);
}

/** Tables that may be statements: not the cover, not the notes; for periodic reports, III. 재무에 관한 사항 first. */
function statementTables(document: DartDocument, family: ReportFamily): DartTable[] {
  const body = document.tables.filter((table) => !table.cover && !/주석|외부감사\s*실시내용/.test(sectionTitles(document, table.section)));
  if (family !== 'periodic')
    return body.filter((table) => !/감사인의\s*감사보고서|감사보고서$/.test(sectionTitle(document, table.section)));
  const financial = body.filter((table) => /재무에\s*관한\s*사항|요약\s*재무|재무제표/.test(sectionTitles(document, table.section)));
  return financial.length > 0 ? financial : body;
}

function sectionTitle(document: DartDocument, section: number): string {
  return section === -1 ? '' : document.sections[section].title;
}

/** The titles of a section and every section around it. */
function sectionTitles(document: DartDocument, section: number): string {
  const titles: string[] = [];
  for (let at = section; at !== -1; at = document.sections[at].parent) titles.push(document.sections[at].title);
  return titles.join(' / ');
}

const CURRENT = /당\s*기|\(\s*당\s*\)|당\s*분\s*기|당\s*반\s*기|당해/;
const PRIOR = /전\s*기|\(\s*전\s*\)|전\s*분\s*기|전\s*반\s*기|전\s*년/;
const BEFORE_PRIOR = /전\s*전\s*기|전전/;
const NOTE = /^주\s*석$/;
const ORDINAL = /제\s*(\d{1,3})\s*(?:\(\s*[당전]\s*\)\s*)?기/;
const YEAR = /(\d{4})\s*(?:년|[.-]|$)/;
/** A quarter's own three months, where the year-to-date column ("누적") is the report's period. */
const THREE_MONTHS = /3\s*개월/;
const CUMULATIVE = /누\s*적/;
const PART_YEAR = /분\s*기|반\s*기/;

/**
 * The columns of this period and the prior one, from the header's words: 당기/전기 and (당)/(전)
 * first, else the highest 기 ordinal (제55기) or year and the next lower one. A 주석 column is never
 * a period. Of a quarter's "3개월" and "누적" columns, the year-to-date one is the period. Null
 * when the header names no current period.
 */
function periodColumns(grid: TableGrid, period: FactPeriod): PeriodColumns | null {
  const header = headerRows(grid, (text) => parseAmount(text) !== null);
  if (header.length === 0) return null;
  const headers = columnHeaders(grid, header);
  const candidates = headers
    .map((text, column) => ({ text, column }))
    .filter(({ text, column }) => column > 0 && text !== '' && !NOTE.test(text));
  let current = candidates.filter(({ text }) => CURRENT.test(text) && !BEFORE_PRIOR.test(text));
  let prior = candidates.filter(({ text }) => PRIOR.test(text) && !BEFORE_PRIOR.test(text) && !CURRENT.test(text));
  // Filers mistype (제 9(당) 기 | 제 8(당) 기): when the columns called current are of different 기, the numbers decide.
  const mixed = new Set(current.map(({ text }) => ORDINAL.exec(text)?.[1] ?? YEAR.exec(text)?.[1] ?? '')).size > 1;
  if (current.length === 0 || mixed) {
    const ranked = rankByOrder(candidates, ORDINAL) ?? rankByOrder(candidates, YEAR);
    if (ranked === null) return null;
    [current, prior] = ranked;
  }
  const pick = (columns: Array<{ text: string; column: number }>): number[] => {
    const cumulative = columns.filter(({ text }) => CUMULATIVE.test(text));
    const chosen = cumulative.length > 0 ? cumulative : columns.filter(({ text }) => !THREE_MONTHS.test(text));
    return chosen.map(({ column }) => column);
  };
  const currentColumns = pick(current);
  if (currentColumns.length === 0) return null;
  // A quarter compared with a whole year (제56기 3분기 against 제55기) is no prior period of the same length.
  const partYear = period.from !== null && monthsBetween(period.from, period.to) < 11;
  const priorColumns = partYear && !prior.some(({ text }) => PART_YEAR.test(text) || CUMULATIVE.test(text)) ? [] : pick(prior);
  const first = Math.min(...currentColumns, ...(priorColumns.length > 0 ? priorColumns : [Infinity]));
  const label = Array.from({ length: first }, (_, column) => column).filter((column) => !NOTE.test(headers[column]));
  return { current: currentColumns, prior: priorColumns, label: label.length > 0 ? label : [0] };
}

/** Columns whose header carries a number (a 기 ordinal or a year): the highest is this period, the next lower the prior one. */
function rankByOrder(
  candidates: ReadonlyArray<{ text: string; column: number }>,
  pattern: RegExp,
): [Array<{ text: string; column: number }>, Array<{ text: string; column: number }>] | null {
  const numbered = candidates
    .map((candidate) => ({ ...candidate, order: Number(pattern.exec(candidate.text)?.[1] ?? NaN) }))
    .filter((candidate) => Number.isFinite(candidate.order));
  if (numbered.length === 0) return null;
  const orders = [...new Set(numbered.map((candidate) => candidate.order))].sort((a, b) => b - a);
  const current = numbered.filter((candidate) => candidate.order === orders[0]);
  const prior = orders.length > 1 && orders[1] === orders[0] - 1 ? numbered.filter((candidate) => candidate.order === orders[1]) : [];
  return [current, prior];
}

function monthsBetween(from: string, to: string): number {
  const [fromYear, fromMonth] = from.split('-').map(Number);
  const [toYear, toMonth] = to.split('-').map(Number);
  return (toYear - fromYear) * 12 + (toMonth - fromMonth);
}

/** Which main line a row is, by the filer's account code first, else by its name; and whether its name puts the loss first. */
function lineOf(
  row: GridRow,
  columns: PeriodColumns,
): { item: FinancialItem; label: string; loss: boolean; source: 'tag' | 'table' } | null {
  const labelCells = distinctCells(columns.label.map((column) => row.slots[column]));
  const label = labelCells
    .map((cell) => cell.text)
    .filter((text) => text !== '')
    .join(' ');
  if (label === '') return null;
  const cleaned = cleanRowLabel(label);
  const code = labelCells.find((cell) => cell.acode !== undefined)?.acode;
  const tagged = code === undefined ? undefined : ACCOUNT_CODES.find(([prefix]) => code.startsWith(prefix));
  if (tagged !== undefined) return { item: tagged[1], label: cleaned, loss: tagged[2], source: 'tag' };
  const named = ROW_NAMES.find(([, pattern]) => pattern.test(cleaned));
  if (named === undefined) return null;
  // 영업손실, 당기순손실(이익): the amounts are of the loss, so a positive number is a negative result.
  const loss = /^[^(]*손실/.test(cleaned);
  return { item: named[0], label: cleaned, loss, source: 'table' };
}

/** The amount of a row under a period's columns: the last one written (a statement's total column comes after its sub-total column). */
function amountIn(row: GridRow, columns: readonly number[]): number | null {
  let amount: number | null = null;
  const cells: DartCell[] = distinctCells(columns.map((column) => row.slots[column]));
  for (const cell of cells) {
    const value = parseAmount(cell.text);
    if (value !== null) amount = value;
  }
  return amount;
}
