import { type AnalysisResult, analysisResultSchema } from './analysis-result.schema';
import type { AnalysisInput } from './analyzer';
import { BuiltinAnalyzer } from './builtin.analyzer';
import { classify } from './builtin/rules';
import { filingInput, QUARTERLY_REPORT, RIGHTS_OFFERING, SHORT_NOTICE, SUPPLY_CONTRACT } from '../../../local/doubles/filing-documents';

const analyzer = new BuiltinAnalyzer();

async function resultOf(input: AnalysisInput): Promise<AnalysisResult> {
  const output = await analyzer.analyze(input);
  // Valid by the same schema the models answer in, and the one-liner is the headline.
  expect(analysisResultSchema.safeParse(output.result).success).toBe(true);
  expect(output.oneLiner).toBe(output.result.headline);
  expect(output.oneLiner.length).toBeLessThanOrEqual(100);
  return output.result;
}

function figure(result: AnalysisResult, label: string) {
  return result.key_figures.find((candidate) => candidate.label.includes(label));
}

describe('BuiltinAnalyzer', () => {
  it('names itself: builtin, extractive-v2, no token usage', async () => {
    const output = await analyzer.analyze(SHORT_NOTICE);
    expect(output).toMatchObject({ provider: 'builtin', model: 'extractive-v2', usage: { promptTokens: null, completionTokens: null } });
  });

  it('reads a rights offering (유상증자 결정): the form fields as figures, dilution computed from the form', async () => {
    const result = await resultOf(RIGHTS_OFFERING);
    expect(result.category).toBe('capital_raise');
    // Two purposes: the line names neither (one would pass for the whole raise).
    expect(result.headline).toBe(
      '가나다바이오, 유상증자 결정: 신주(보통주) 4,000,000주, 발행가액(보통주) 8,000원, 주주배정후 실권주 일반공모',
    );
    expect(figure(result, '시설자금')).toEqual({ label: '시설자금', value: 20_000_000_000, unit: '원', period: null });
    expect(figure(result, '운영자금')).toMatchObject({ value: 12_000_000_000, unit: '원' });
    expect(figure(result, '신주')).toMatchObject({ value: 4_000_000, unit: '주' });
    // The par value is a form detail, never a key figure.
    expect(figure(result, '액면')).toBeUndefined();
    expect(result.sentiment).toBe('negative');
    // 4,000,000 new shares on 16,000,000: 25%, high.
    expect(result.impact).toMatchObject({ level: 'high', direction: 'down', reason: expect.stringContaining('25.0%') });
    expect(result.risks).toContain('향후 청약 결과에 따라 실제 조달금액은 변동될 수 있습니다.');
    expect(result.key_points.join('\n')).not.toMatch(/귀중|대표이사/);
  });

  it('reads a supply contract (단일판매ㆍ공급계약 체결): amount, share of revenue, counterparty', async () => {
    const result = await resultOf(SUPPLY_CONTRACT);
    expect(result.category).toBe('contract');
    expect(result.headline).toBe(
      '에이비씨케미칼, 단일판매ㆍ공급계약 체결: 2차전지 양극재 공급계약, 계약금액 520억원, 매출액 대비 34.67%, 계약상대 글로벌배터리 주식회사',
    );
    expect(figure(result, '계약금액')).toEqual({ label: '계약금액', value: 52_000_000_000, unit: '원', period: null });
    expect(figure(result, '매출액 대비')).toMatchObject({ value: 34.67, unit: '%' });
    expect(result.sentiment).toBe('positive');
    expect(result.impact).toMatchObject({ level: 'high', direction: 'up' });
    expect(result.key_points).toContain('계약상대: 글로벌배터리 주식회사');
    expect(result.risks[0]).toMatch(/^계약 상대방의 요청에 따라 납품 일정이 변경될 수/);
  });

  it('reads a quarterly report (분기보고서): the main lines with period and unit, the change on the same quarter', async () => {
    const result = await resultOf(QUARTERLY_REPORT);
    expect(result.category).toBe('periodic');
    expect(result.headline).toBe('한빛반도체 분기보고서 (2025.03): 매출액 1조 2,346억원(+15.2%), 영업이익 1,235억원(흑자전환)');
    expect(result.key_figures.slice(0, 2)).toEqual([
      { label: '매출액', value: 1_234_567, unit: '백만원', period: '2025-01-01~2025-03-31' },
      { label: '영업이익', value: 123_456, unit: '백만원', period: '2025-01-01~2025-03-31' },
    ]);
    // The prior quarter's loss keeps its sign; a balance is of a date.
    expect(result.key_figures).toContainEqual({ label: '영업이익', value: -10_234, unit: '백만원', period: '2024-01-01~2024-03-31' });
    expect(figure(result, '자산총계')).toEqual({ label: '자산총계', value: 5_432_100, unit: '백만원', period: '2025-03-31' });
    expect(result.sentiment).toBe('positive');
    expect(result.impact).toMatchObject({ level: 'low', direction: 'up', reason: expect.stringContaining('흑자전환') });
    expect(result.summary).toContain('영업이익 1,235억원(전기 대비 흑자전환)');
  });

  it('reads a very short notice: its rows as key points, no figures, neutral', async () => {
    const result = await resultOf(SHORT_NOTICE);
    expect(result.category).toBe('other');
    expect(result.headline).toBe('라온소프트, 기업설명회(IR)개최(안내공시)');
    expect(result.key_points).toEqual([
      '개최일시: 2025-03-20 14:00',
      '개최장소: 서울 여의도 본사 대회의실',
      '참가대상: 국내외 기관투자자 및 애널리스트',
    ]);
    expect(result.key_figures).toEqual([]);
    expect(result.risks).toEqual([]);
    expect(result).toMatchObject({ sentiment: 'neutral', impact: { level: 'low', direction: 'unclear' } });
    expect(result.summary).toMatch(/AI 모델 없이/);
  });

  it('keeps the news of a governance filing, not only the form lines', async () => {
    const result = await resultOf(
      filingInput(
        { rceptNo: '20250320000321', corpName: '마루식품', reportName: '대표이사변경', rceptDt: '20250320' },
        `<html><body><span>대표이사 변경</span><table><tr><td>회사명</td><td>마루식품 주식회사</td></tr>
<tr><td>1. 변경전 대표이사</td><td>홍길동</td></tr><tr><td>2. 변경후 대표이사</td><td>김철수</td></tr>
<tr><td>3. 변경사유</td><td>임기만료에 따른 신규 선임</td></tr><tr><td>4. 변경일자</td><td>2025-03-20</td></tr></table></body></html>`,
      ),
    );
    expect(result.category).toBe('governance');
    expect(result.key_points).toEqual(expect.arrayContaining(['변경후 대표이사: 김철수', '변경사유: 임기만료에 따른 신규 선임']));
    expect(result.key_points.join('\n')).not.toContain('회사명');
    expect(result).toMatchObject({ sentiment: 'neutral', impact: { direction: 'unclear' } });
  });

  it('still answers for a filing with almost no text', async () => {
    const result = await resultOf(filingInput({ ...SHORT_NOTICE, reportName: '기타시장안내' }, '<P>해당사항 없음</P>'));
    expect(result.key_points).toHaveLength(2);
    expect(result.summary.split('. ').length).toBeGreaterThanOrEqual(2);
  });

  it('gives the same answer every time, from any instance', async () => {
    for (const input of [RIGHTS_OFFERING, SUPPLY_CONTRACT, QUARTERLY_REPORT, SHORT_NOTICE]) {
      const first = await analyzer.analyze(input);
      const again = await new BuiltinAnalyzer().analyze({ ...input });
      expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    }
  });

  it('says when part of the document was left out', async () => {
    const result = await resultOf({ ...QUARTERLY_REPORT, docLength: 480_000, truncated: true });
    expect(result.summary).toContain('480,000자 중 일부만 분석');
    expect(result.risks).toContain('원문 일부만 분석해 빠진 내용이 있을 수 있습니다.');
  });

  it('keeps the headline within 100 characters for long names', async () => {
    const result = await resultOf({
      ...SUPPLY_CONTRACT,
      corpName: '아주아주긴이름을가진글로벌첨단소재및에너지솔루션홀딩스주식회사',
      reportName:
        '[기재정정]단일판매ㆍ공급계약체결(자율공시)(종속회사의 주요경영사항) 및 해외 자회사 공급 물량 변경에 관한 매우 긴 정정 공시 제목',
    });
    // Too long even without the facts: cut at a word, marked.
    expect(result.headline).toMatch(/^아주아주긴이름을가진\S+, \[정정\] 단일판매ㆍ공급계약체결.*…$/);
    expect(result.headline.length).toBeLessThanOrEqual(100);
  });
});

describe('the extractive rules', () => {
  it.each([
    ['주요사항보고서(유상증자결정)', 'capital_raise'],
    ['[기재정정]주요사항보고서(전환사채권발행결정)', 'capital_raise'],
    ['증권신고서(지분증권)', 'capital_raise'],
    ['단일판매ㆍ공급계약체결', 'contract'],
    ['연결재무제표기준영업(잠정)실적(공정공시)', 'earnings'],
    ['매출액또는손익구조30%(대규모법인은15%)이상변경', 'earnings'],
    ['현금ㆍ현물배당결정', 'dividend'],
    ['최대주주등소유주식변동신고서', 'ownership'],
    ['임원ㆍ주요주주특정증권등소유상황보고서', 'ownership'],
    ['주요사항보고서(자기주식취득결정)', 'ownership'],
    ['주식등의대량보유상황보고서(일반)', 'ownership'],
    ['타법인주식및출자증권취득결정', 'mna'],
    ['주요사항보고서(회사합병결정)', 'mna'],
    ['소송등의제기ㆍ신청(일정금액이상의청구)', 'legal'],
    ['사업보고서 (2024.12)', 'periodic'],
    ['감사보고서제출', 'periodic'],
    ['주주총회소집결의', 'governance'],
    ['기업설명회(IR)개최(안내공시)', 'other'],
  ])('classifies %s as %s', (reportName, category) => {
    expect(classify(reportName, '')).toBe(category);
  });

  it('falls back to the words of the text when the report name says nothing', () => {
    expect(classify('기타시장안내', '원고는 당사를 상대로 소송을 제기하였으며, 소송 금액은 … 판결 예정')).toBe('legal');
    expect(classify('기타시장안내', '소송 1건')).toBe('other');
  });
});
