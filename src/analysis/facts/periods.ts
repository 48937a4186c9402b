import type { DartDocument } from '../document/dart-document';
import type { FactPeriod } from './filing-facts.types';

/** 20250101, "2025년 1월 1일", "2025.01.01", "2025-01-01", "2025. 1. 1" → "2025-01-01"; null for anything else. */
export function parseDate(text: string): string | null {
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(text.trim());
  const written = compact ?? /(\d{4})\s*(?:년|[.-])\s*(\d{1,2})\s*(?:월|[.-])\s*(\d{1,2})\s*일?/.exec(text);
  if (written === null) return null;
  const [year, month, day] = [Number(written[1]), Number(written[2]), Number(written[3])];
  if (year < 1950 || year > 2100 || month < 1 || month > 12 || day < 1 || day > 31) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  // 2025-02-30 is no date.
  if (date.getUTCMonth() !== month - 1) return null;
  return date.toISOString().slice(0, 10);
}

/** The period a periodic or audit report covers, from the filer's tags, else from the words of its cover. */
export function reportPeriod(document: DartDocument, reportName: string): FactPeriod | null {
  const tagged =
    taggedPeriod(document) ?? writtenPeriod([...document.coverLines, ...document.lines.slice(0, 400).map((line) => line.text)]);
  if (tagged === null) return null;
  // "반기보고서 (2022.06)": the cover states the business year, the report covers it up to June.
  const month = /^\s*(?:\[[^\]]*\]\s*)*(?:반기|분기)보고서\s*\((\d{4})\.(\d{2})\)/.exec(reportName);
  if (month === null) return tagged;
  const end = monthEnd(Number(month[1]), Number(month[2]));
  return end < tagged.to && (tagged.from === null || end > tagged.from) ? { from: tagged.from, to: end } : tagged;
}

/** The TU cells the filer tagged PERIODFROM and PERIODTO (PERIODFROM2… on an attached statement's cover), cover first. */
function taggedPeriod(document: DartDocument): FactPeriod | null {
  const tables = [...document.tables.filter((table) => table.cover), ...document.tables.filter((table) => !table.cover)];
  const found: { from: string | null; to: string | null } = { from: null, to: null };
  search: for (const table of tables) {
    for (const row of table.rows) {
      for (const cell of row.cells) {
        if (cell.aunit === undefined || cell.aunitValue === undefined) continue;
        if (found.from === null && /^PERIODFROM\d*$/.test(cell.aunit)) found.from = parseDate(cell.aunitValue);
        if (found.to === null && /^PERIODTO\d*$/.test(cell.aunit)) found.to = parseDate(cell.aunitValue);
        if (found.from !== null && found.to !== null) break search;
      }
    }
  }
  const { from, to } = found;
  return to === null || (from !== null && from > to) ? null : { from, to };
}

/** "제 8(당) 기 : 2025년 1월 1일부터 2025년 12월 31일까지", or the cover's "2025년 01월 01일 | 부터" and "… | 까지" lines. */
function writtenPeriod(lines: readonly string[]): FactPeriod | null {
  const DATE = String.raw`(\d{4}\s*(?:년|[.-])\s*\d{1,2}\s*(?:월|[.-])\s*\d{1,2}\s*일?)`;
  const range = new RegExp(`${DATE}\\s*(?:\\|\\s*)?부터\\s*(?:\\|\\s*)?${DATE}\\s*(?:\\|\\s*)?까지`);
  for (const [index, line] of lines.entries()) {
    const joined = range.exec(line) ?? range.exec(`${line} ${lines[index + 1] ?? ''}`);
    if (joined === null) continue;
    const from = parseDate(joined[1]);
    const to = parseDate(joined[2]);
    if (from !== null && to !== null && from < to) return { from, to };
  }
  return null;
}

function monthEnd(year: number, month: number): string {
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}

/** The same period a year earlier (the prior term of a flow: revenue, profit). */
export function yearEarlier(period: FactPeriod): FactPeriod {
  return { from: period.from === null ? null : shiftYear(period.from), to: shiftYear(period.to) };
}

/** A balance's date: the period's end; the prior term's is the day before the period began (the last year-end). */
export function balanceDate(period: FactPeriod, term: 'current' | 'prior'): FactPeriod {
  if (term === 'current') return { from: null, to: period.to };
  if (period.from === null) return { from: null, to: shiftYear(period.to) };
  const start = new Date(`${period.from}T00:00:00Z`);
  start.setUTCDate(start.getUTCDate() - 1);
  return { from: null, to: start.toISOString().slice(0, 10) };
}

function shiftYear(iso: string): string {
  const [year, month, day] = iso.split('-').map(Number);
  // 2024-02-29 a year earlier is 2023-02-28.
  const date = new Date(Date.UTC(year - 1, month - 1, Math.min(day, new Date(Date.UTC(year - 1, month, 0)).getUTCDate())));
  return date.toISOString().slice(0, 10);
}

/** "2025-01-01~2025-12-31" or "2025-12-31". */
export function formatPeriod(period: FactPeriod): string {
  return period.from === null ? period.to : `${period.from}~${period.to}`;
}
