import { parseDartDocument } from '../document/dart-document';
import { validAnswer } from '../../../local/doubles/analysis-answers';
import { realInput, samsungAnnualReportMarkup } from '../../../test/support/real-filings';
import { analysisInput, withFactKeyFigures } from './filing-brief';

describe('analysisInput', () => {
  it("gives an audit report's facts first: the opinion with its auditor, the main lines exact with unit and period", () => {
    const input = realInput('20230404002324_00760.audit-qualified-loss.xml', {
      corpName: '태영에스티엠',
      reportName: '감사보고서 (2022.12)',
    });
    expect(input.factLines.slice(0, 3)).toEqual([
      '보고 기간: 2022-01-01~2022-12-31',
      '감사의견: 한정 (감사인: 이백십호공인회계사감사반(제210호))',
      '매출액: 75억원 (7,463,557,906원, 2022-01-01~2022-12-31), 전기 매출액 138억원 (2021-01-01~2021-12-31), -45.9%',
    ]);
    expect(input.factLines).toContain(
      '순손실: 39억원 (-3,914,280,052원, 2022-01-01~2022-12-31), 전기 순이익 7억원 (2021-01-01~2021-12-31), 적자전환',
    );
    expect(input.truncated).toBe(false);
    expect(input.docLength).toBe(input.text.length);
  });

  it("decodes DART's &cr; everywhere: the text a model reads, the facts, the length", () => {
    const input = realInput('20220127000408_00760.audit-euckr-disclaimer.xml', {
      corpName: '남경산업',
      reportName: '감사보고서 (2021.12)',
    });
    expect(input.text).not.toMatch(/&cr;|&[a-z]+;/i);
    expect(input.text).toContain('송림공인회계사감사반');
    expect(JSON.stringify(input.facts)).not.toContain('&cr;');
  });

  it('puts the facts and the chosen sections within the budget together', () => {
    const input = analysisInput(
      { rceptNo: '20240312000736', corpName: '삼성전자', reportName: '사업보고서 (2023.12)', rceptDt: '20240312' },
      parseDartDocument(samsungAnnualReportMarkup()),
      20_000,
    );
    const factChars = input.factLines.reduce((sum, line) => sum + line.length + 3, 0);
    expect(input.text.length + factChars).toBeLessThanOrEqual(20_000);
    expect(input.truncated).toBe(true);
    expect(input.omittedSections.length).toBeGreaterThan(0);
    expect(input.factLines[1]).toBe('감사의견: 적정 (감사인: 삼정회계법인)');
  });
});

describe('withFactKeyFigures', () => {
  it("leads with the figures read from the filing, each with its period, and keeps the model's own that add something", () => {
    const input = realInput('20260630000641_00760.audit-kgaap-tagged.xml', {
      corpName: '한국학술정보',
      reportName: '감사보고서 (2026.03)',
    });
    const answer = {
      ...validAnswer(),
      key_figures: [
        // The model's revenue for the same period gives way to the statement's.
        { label: '매출액', value: 39_000_000_000, unit: '원', period: '2025-04-01~2026-03-31' },
        { label: '부채비율', value: 245.7, unit: '%', period: '2026-03-31' },
      ],
    };
    const figures = withFactKeyFigures(answer, input).key_figures;
    expect(figures.slice(0, 3)).toEqual([
      { label: '감사의견', value: '적정', unit: null, period: '2025-04-01~2026-03-31' },
      { label: '매출액', value: 39_148_198_762, unit: '원', period: '2025-04-01~2026-03-31' },
      { label: '영업이익', value: 1_843_858_188, unit: '원', period: '2025-04-01~2026-03-31' },
    ]);
    expect(figures.filter((figure) => figure.label === '매출액' && figure.period === '2025-04-01~2026-03-31')).toHaveLength(1);
    expect(figures).toHaveLength(8);
    expect(figures).not.toContainEqual(expect.objectContaining({ label: '부채비율' }));
    // With room, the model's own figure stays.
    const fewer = withFactKeyFigures(answer, { facts: { ...input.facts, financials: input.facts.financials.slice(0, 2) } }).key_figures;
    expect(fewer).toContainEqual({ label: '부채비율', value: 245.7, unit: '%', period: '2026-03-31' });
  });
});
