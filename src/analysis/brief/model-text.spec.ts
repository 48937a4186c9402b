import { parseDartDocument } from '../document/dart-document';
import { samsungAnnualReportMarkup } from '../../../test/support/real-filings';
import { modelText } from './model-text';

describe('modelText', () => {
  // The real annual report's cover, I.1, II.1-2, III.1, IV and V: 41,000 characters of text.
  const report = parseDartDocument(samsungAnnualReportMarkup());

  it('passes a document that fits whole', () => {
    const chosen = modelText(report, 'periodic', 100_000);
    expect(chosen).toMatchObject({ truncated: false, omitted: [] });
    expect(chosen.text.length).toBeGreaterThan(40_000);
  });

  it("chooses a long annual report's summary financial information, audit opinion and business overview, in document order", () => {
    const chosen = modelText(report, 'periodic', 20_000);
    expect(chosen.truncated).toBe(true);
    expect(chosen.text.length).toBeLessThanOrEqual(20_000);
    // III.1 whole: the consolidated summary's revenue, operating profit and total assets.
    expect(chosen.text).toContain('【III. 재무에 관한 사항 > 1. 요약재무정보】');
    expect(chosen.text).toContain('매출액 | 258,935,494 | 302,231,360 | 279,604,799');
    expect(chosen.text).toContain('자산총계 | 455,905,980 | 448,424,507 | 426,621,158');
    // V.1: the auditor and the opinion.
    expect(chosen.text).toContain('【V. 회계감사인의 감사의견 등 > 1. 외부감사에 관한 사항】');
    expect(chosen.text).toContain('제55기(당기) | 삼정회계법인 | 적정');
    expect(chosen.text).toContain('【II. 사업의 내용 > 1. 사업의 개요】');
    const at = (marker: string): number => chosen.text.indexOf(marker);
    expect(at('사업의 개요')).toBeLessThan(at('요약재무정보'));
    expect(at('요약재무정보')).toBeLessThan(at('외부감사에 관한 사항'));
    // What did not fit is named.
    expect(chosen.omitted).toEqual(expect.arrayContaining(['I. 회사의 개요 > 1. 회사의 개요', 'II. 사업의 내용 > 2. 주요 제품 및 서비스']));
    expect(chosen.omitted).not.toContain('III. 재무에 관한 사항 > 1. 요약재무정보');
  });

  it('cuts the most wanted section at a line when even it does not fit, and says so', () => {
    const chosen = modelText(report, 'periodic', 2_500);
    expect(chosen.text.length).toBeLessThanOrEqual(2_500);
    expect(chosen.text).toMatch(
      /【III\. 재무에 관한 사항 > 1\. 요약재무정보】\n1\. 요약재무정보\n가\. 요약연결재무정보\n\(단위 : 백만원\)\n[^]*\n…\(이하 생략\)…$/,
    );
    expect(chosen.omitted).toContain('V. 회계감사인의 감사의견 등 > 1. 외부감사에 관한 사항');
  });

  it('keeps the beginning and the end of a long document of another family', () => {
    const chosen = modelText(report, 'event', 10_000);
    expect(chosen.truncated).toBe(true);
    expect(chosen.omitted).toEqual([]);
    expect(chosen.text).toContain('…(중략)…');
    expect(chosen.text.length).toBeLessThanOrEqual(10_000);
  });
});
