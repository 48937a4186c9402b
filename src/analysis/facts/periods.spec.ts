import { parseDartDocument } from '../document/dart-document';
import { balanceDate, formatPeriod, parseDate, reportPeriod, yearEarlier } from './periods';

describe('periods', () => {
  it.each([
    ['20250101', '2025-01-01'],
    ['2025년 01월 01일', '2025-01-01'],
    ['2025년 1월 1일', '2025-01-01'],
    ['2024. 2. 29', '2024-02-29'],
    ['2025-12-31', '2025-12-31'],
    ['2025.02.30', null],
    ['2025-13-01', null],
    ['제55기', null],
  ])('reads the date %j as %j', (text, date) => {
    expect(parseDate(text)).toBe(date);
  });

  const cover = (from: string, to: string) =>
    `<DOCUMENT><BODY><COVER><TABLE><TR><TU AUNIT="PERIODFROM" AUNITVALUE="${from}">x</TU><TD>부터</TD></TR><TR><TU AUNIT="PERIODTO" AUNITVALUE="${to}">y</TU></TR></TABLE></COVER></BODY></DOCUMENT>`;

  it("takes the period the cover tags, up to the month the report name gives (a half-year report's cover states the business year)", () => {
    expect(reportPeriod(parseDartDocument(cover('20230101', '20231231')), '사업보고서 (2023.12)')).toEqual({
      from: '2023-01-01',
      to: '2023-12-31',
    });
    expect(reportPeriod(parseDartDocument(cover('20220101', '20221231')), '반기보고서 (2022.06)')).toEqual({
      from: '2022-01-01',
      to: '2022-06-30',
    });
    expect(reportPeriod(parseDartDocument(cover('20250401', '20260331')), '감사보고서')).toEqual({ from: '2025-04-01', to: '2026-03-31' });
  });

  it('reads a written period when nothing is tagged, and none when nothing is written', () => {
    const written = parseDartDocument('<P>제 8(당) 기 : 2025년 1월 1일부터 2025년 12월 31일까지</P>');
    expect(reportPeriod(written, '감사보고서')).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    const split = parseDartDocument(
      '<TABLE><TR><TD>2024년 04월 01일</TD><TD>부터</TD></TR><TR><TD>2025년 03월 31일</TD><TD>까지</TD></TR></TABLE>',
    );
    expect(reportPeriod(split, '감사보고서')).toEqual({ from: '2024-04-01', to: '2025-03-31' });
    expect(reportPeriod(parseDartDocument('<P>본문</P>'), '감사보고서')).toBeNull();
  });

  it('dates the prior term: a flow a year earlier, a balance the day before the period began', () => {
    const period = { from: '2025-04-01', to: '2026-03-31' };
    expect(yearEarlier(period)).toEqual({ from: '2024-04-01', to: '2025-03-31' });
    expect(yearEarlier({ from: '2024-01-01', to: '2024-02-29' })).toEqual({ from: '2023-01-01', to: '2023-02-28' });
    expect(balanceDate(period, 'current')).toEqual({ from: null, to: '2026-03-31' });
    expect(balanceDate(period, 'prior')).toEqual({ from: null, to: '2025-03-31' });
    // A quarter's balance is compared with the last year-end.
    expect(balanceDate({ from: '2025-01-01', to: '2025-03-31' }, 'prior')).toEqual({ from: null, to: '2024-12-31' });
    expect(formatPeriod(period)).toBe('2025-04-01~2026-03-31');
    expect(formatPeriod({ from: null, to: '2026-03-31' })).toBe('2026-03-31');
  });
});
