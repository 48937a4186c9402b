import { parseDartDocument } from '../document/dart-document';
import { realDocument, samsungAnnualReportMarkup } from '../../../test/support/real-filings';
import { readFilingFacts } from './filing-facts';
import type { FinancialFact, FinancialItem } from './filing-facts.types';

/** The figures of a filing as [item, term] → value, unit, period, source. */
function figures(facts: { financials: FinancialFact[] }): Record<string, string> {
  return Object.fromEntries(
    facts.financials.map((fact) => [
      `${fact.item} ${fact.term}`,
      `${fact.value} ${fact.unit} ${fact.period.from ?? ''}~${fact.period.to} ${fact.source}`,
    ]),
  );
}

function value(facts: { financials: FinancialFact[] }, item: FinancialItem, term: 'current' | 'prior'): number | undefined {
  return facts.financials.find((fact) => fact.item === item && fact.term === term)?.value;
}

describe('the main financial lines of real filings', () => {
  it('reads tagged K-GAAP statements: account codes, the total column of each period, a fiscal year from April', () => {
    const facts = readFilingFacts(realDocument('20260630000641_00760.audit-kgaap-tagged.xml'), '감사보고서 (2026.03)');
    expect(facts.period).toEqual({ from: '2025-04-01', to: '2026-03-31' });
    expect(figures(facts)).toEqual({
      'revenue current': '39148198762 원 2025-04-01~2026-03-31 tag',
      'revenue prior': '40045263359 원 2024-04-01~2025-03-31 tag',
      'operating_profit current': '1843858188 원 2025-04-01~2026-03-31 tag',
      'operating_profit prior': '1716581763 원 2024-04-01~2025-03-31 tag',
      'net_profit current': '172184056 원 2025-04-01~2026-03-31 tag',
      'net_profit prior': '138144741 원 2024-04-01~2025-03-31 tag',
      // A balance is of a date: the period's end, and the day before it began.
      'total_assets current': '46609006893 원 ~2026-03-31 tag',
      'total_assets prior': '50320613406 원 ~2025-03-31 tag',
    });
  });

  it('reads the amount under its period, never the 주석 column, even when both periods are mistyped (당)', () => {
    // 매출액 | 24 | 22,143,893,146 | 20,922,534,839: "24" is the note, and the header says 제 9(당) 기 | 제 8(당) 기.
    const facts = readFilingFacts(realDocument('20240329003157_00760.audit-kifrs-note-column.xml'), '감사보고서 (2023.12)');
    expect(value(facts, 'revenue', 'current')).toBe(22_143_893_146);
    expect(value(facts, 'revenue', 'prior')).toBe(20_922_534_839);
    expect(value(facts, 'operating_profit', 'current')).toBe(3_145_492_091);
    expect(value(facts, 'net_profit', 'current')).toBe(2_666_471_571);
    expect(value(facts, 'total_assets', 'current')).toBe(20_948_917_646);
    expect(facts.financials.every((fact) => fact.source === 'table' && fact.unit === '원')).toBe(true);
  });

  it('gives a loss its sign, this year a loss and last year a profit', () => {
    const facts = readFilingFacts(realDocument('20230404002324_00760.audit-qualified-loss.xml'), '감사보고서 (2022.12)');
    expect(value(facts, 'net_profit', 'current')).toBe(-3_914_280_052);
    expect(value(facts, 'net_profit', 'prior')).toBe(699_523_641);
    expect(value(facts, 'operating_profit', 'current')).toBe(-3_041_861_373);
    expect(value(facts, 'revenue', 'current')).toBe(7_463_557_906);
  });

  it('reads an EUC-KR dart3 report under a utf-8 declaration, (losses) in parentheses', () => {
    const document = realDocument('20220127000408_00760.audit-euckr-disclaimer.xml');
    const facts = readFilingFacts(document, '감사보고서 (2021.12)');
    expect(value(facts, 'revenue', 'current')).toBe(23_795_704_614);
    expect(value(facts, 'operating_profit', 'current')).toBe(-6_308_961_098);
    expect(value(facts, 'operating_profit', 'prior')).toBe(71_129_652);
    expect(value(facts, 'net_profit', 'current')).toBe(-7_040_301_441);
  });

  it('reads an annual report from its summary financial information, consolidated, in the unit the table states', () => {
    const facts = readFilingFacts(parseDartDocument(samsungAnnualReportMarkup()), '사업보고서 (2023.12)');
    expect(facts.family).toBe('periodic');
    expect(figures(facts)).toEqual({
      'revenue current': '258935494 백만원 2023-01-01~2023-12-31 table',
      'revenue prior': '302231360 백만원 2022-01-01~2022-12-31 table',
      'operating_profit current': '6566976 백만원 2023-01-01~2023-12-31 table',
      'operating_profit prior': '43376630 백만원 2022-01-01~2022-12-31 table',
      'net_profit current': '15487100 백만원 2023-01-01~2023-12-31 table',
      'net_profit prior': '55654077 백만원 2022-01-01~2022-12-31 table',
      'total_assets current': '455905980 백만원 ~2023-12-31 table',
      'total_assets prior': '448424507 백만원 ~2022-12-31 table',
    });
    expect(facts.financials.every((fact) => fact.consolidated)).toBe(true);
  });

  it('states nothing for a report that attaches no statements, and nothing when the period is unknown', () => {
    expect(readFilingFacts(realDocument('20260630000634_00760.audit-disclaimer-cover-auditor.xml'), '감사보고서').financials).toEqual([]);
    expect(readFilingFacts(realDocument('20230403002788_00760.audit-disclaimer-address.xml'), '감사보고서').financials).toEqual([]);
    // The statements without the cover's tagged period and without any written period: no figure can be placed.
    const markup = `<DOCUMENT><DOCUMENT-NAME ACODE="00760">감사보고서</DOCUMENT-NAME><BODY>
<TABLE><THEAD><TR><TH>과 목</TH><TH>당기</TH><TH>전기</TH></TR></THEAD><TR><TD>(단위 : 원)</TD></TR>
<TR><TD>매출액</TD><TD>1,000</TD><TD>900</TD></TR></TABLE></BODY></DOCUMENT>`;
    expect(readFilingFacts(parseDartDocument(markup), '감사보고서').financials).toEqual([]);
  });

  it('leaves out a table whose unit it cannot place, and a quarter compared with a whole year', () => {
    const cover = `<COVER><TABLE><TR><TU AUNIT="PERIODFROM" AUNITVALUE="20250101">a</TU><TU AUNIT="PERIODTO" AUNITVALUE="20251231">b</TU></TR></TABLE></COVER>`;
    const noUnit = `<DOCUMENT><BODY>${cover}<SECTION-1><TITLE>III. 재무에 관한 사항</TITLE><TABLE><THEAD><TR><TH>구분</TH><TH>제10기</TH><TH>제9기</TH></TR></THEAD>
<TR><TD>매출액</TD><TD>1,000</TD><TD>900</TD></TR></TABLE></SECTION-1></BODY></DOCUMENT>`;
    expect(readFilingFacts(parseDartDocument(noUnit), '사업보고서 (2025.12)').financials).toEqual([]);
    const quarter = noUnit.replace('<TABLE><THEAD>', '<P>(단위 : 백만원)</P><TABLE><THEAD>').replace('제10기</TH>', '제10기 1분기</TH>');
    const facts = readFilingFacts(parseDartDocument(quarter), '분기보고서 (2025.03)');
    expect(figures(facts)).toEqual({ 'revenue current': '1000 백만원 2025-01-01~2025-03-31 table' });
  });
});
