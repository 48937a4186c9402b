import { parseDartDocument } from '../document/dart-document';
import { readFilingFacts } from '../facts/filing-facts';
import { realDocument, samsungAnnualReportMarkup } from '../../../test/support/real-filings';
import { oneLiner, reportTitle } from './one-liner';

function lineOf(file: string, corpName: string, reportName: string): string {
  return oneLiner(readFilingFacts(realDocument(file), reportName), corpName, reportName);
}

describe('the one-liner of real filings', () => {
  it.each([
    // The opinion first; then revenue and the operating result with their change, each number one of the statements'.
    [
      '20260630000641_00760.audit-kgaap-tagged.xml',
      '감사보고서 (2026.03)',
      '한국학술정보',
      '한국학술정보 감사보고서 (2026.03): 감사의견 적정, 매출액 391억원(-2.2%), 영업이익 18억원(+7.4%)',
    ],
    // 22,143,893,146원, not the note column's "24".
    [
      '20240329003157_00760.audit-kifrs-note-column.xml',
      '감사보고서 (2023.12)',
      '제일에프에이',
      '제일에프에이 감사보고서 (2023.12): 감사의견 적정, 매출액 221억원(+5.8%), 영업이익 31억원(+515.4%)',
    ],
    // This year's loss, not last year's profit.
    [
      '20230404002324_00760.audit-qualified-loss.xml',
      '감사보고서 (2022.12)',
      '태영에스티엠',
      '태영에스티엠 감사보고서 (2022.12): 감사의견 한정, 매출액 75억원(-45.9%), 영업손실 30억원(적자전환)',
    ],
    [
      '20220127000408_00760.audit-euckr-disclaimer.xml',
      '감사보고서 (2021.12)',
      '남경산업',
      '남경산업 감사보고서 (2021.12): 감사의견 의견거절, 매출액 238억원(-6.2%), 영업손실 63억원(적자전환)',
    ],
    // No statements, and the auditor's street address is no amount.
    [
      '20230403002788_00760.audit-disclaimer-address.xml',
      '감사보고서 (2022.12)',
      '삼정이엔지',
      '삼정이엔지 감사보고서 (2022.12): 감사의견 의견거절',
    ],
  ])('%s', (file, reportName, corpName, expected) => {
    expect(lineOf(file, corpName, reportName)).toBe(expected);
  });

  it('an annual report: revenue and operating profit with their change on the prior year', () => {
    const reportName = '사업보고서 (2023.12)';
    const facts = readFilingFacts(parseDartDocument(samsungAnnualReportMarkup()), reportName);
    expect(oneLiner(facts, '삼성전자', reportName)).toBe(
      '삼성전자 사업보고서 (2023.12): 매출액 258조 9,355억원(-14.3%), 영업이익 6조 5,670억원(-84.9%)',
    );
  });

  it.each([
    [
      '20250731800028.supply-contract-correction.xml',
      '삼성전자',
      '[기재정정]단일판매ㆍ공급계약체결',
      '삼성전자, [정정] 단일판매ㆍ공급계약 체결: 반도체 위탁생산 공급계약, 계약금액 22조 7,648억원, 매출액 대비 7.6%, 계약상대 테슬라(Tesla, Inc.)',
    ],
    [
      '20240930000001.buyback.xml',
      'NAVER',
      '주요사항보고서(자기주식취득결정)',
      'NAVER, 자기주식취득 결정: 취득예정금액(보통주) 4,012억원, 취득예정주식(보통주) 2,347,500주, 장내매수',
    ],
    [
      '20230403003950.exchangeable-bond.xml',
      'SK하이닉스',
      '주요사항보고서(교환사채권발행결정)',
      'SK하이닉스, 교환사채권발행 결정: 권면총액 1조 9,745억원, 발행할 주식수 17,759,040주, 교환가액 111,180원, 주식총수 대비 2.4%, 사모',
    ],
    [
      '20260430800106.dividend.xml',
      '삼성전자',
      '현금ㆍ현물배당결정',
      '삼성전자, 현금ㆍ현물배당 결정: 분기배당, 배당금총액 2조 4,533억원, 1주당 배당금(보통주) 372원, 시가배당률(보통주) 0.2%',
    ],
    [
      'skhynix-2023q3.earnings-loss.xml',
      'SK하이닉스',
      '연결재무제표기준영업(잠정)실적(공정공시)',
      'SK하이닉스 2023년 3분기 잠정실적: 매출액 9조 662억원(-17.5%), 영업손실 1조 7,920억원(적자전환)',
    ],
  ])('%s', (file, corpName, reportName, expected) => {
    expect(lineOf(file, corpName, reportName)).toBe(expected);
  });

  it('marks a corrected earnings release, and gives the change the form states (1,813.83%, not 1,812.2% from its rounded 조원)', () => {
    const reportName = '[기재정정]연결재무제표기준영업(잠정)실적(공정공시)';
    expect(lineOf('20260730800123.earnings-correction-trillion-won.xml', '삼성전자', reportName)).toBe(
      '삼성전자 [정정] 2026년 2분기 잠정실적: 매출액 171조 5,000억원(+130.0%), 영업이익 89조 4,900억원(+1,813.8%)',
    );
  });

  it('stays within 100 characters, company first, leaving out the parts that do not fit', () => {
    const reportName = '[기재정정]단일판매ㆍ공급계약체결';
    const line = lineOf(
      '20250731800028.supply-contract-correction.xml',
      '아주아주긴이름을가진글로벌첨단소재및에너지솔루션홀딩스',
      reportName,
    );
    expect(line.length).toBeLessThanOrEqual(100);
    expect(line).toBe(
      '아주아주긴이름을가진글로벌첨단소재및에너지솔루션홀딩스, [정정] 단일판매ㆍ공급계약 체결: 반도체 위탁생산 공급계약, 계약금액 22조 7,648억원, 매출액 대비 7.6%',
    );
  });

  it('cleans report names into titles', () => {
    expect(reportTitle('[기재정정]주요사항보고서(유상증자결정)')).toBe('[정정] 유상증자 결정');
    expect(reportTitle('단일판매ㆍ공급계약체결')).toBe('단일판매ㆍ공급계약 체결');
    expect(reportTitle('[첨부추가]사업보고서 (2024.12)')).toBe('사업보고서 (2024.12)');
  });
});
