import type { AnalysisResult } from '../../src/analysis/analyzers/analysis-result.schema';

/** A complete, valid analysis as a model would answer it; a new object on every call. */
export function validAnswer(): AnalysisResult {
  return {
    schema_version: 2,
    headline: '에이비씨케미칼, 최근 매출의 35% 규모인 520억원 양극재 공급계약 체결',
    summary:
      '에이비씨케미칼이 글로벌배터리와 520억원 규모의 2차전지 양극재 공급계약을 맺었습니다. 계약금액은 최근 매출액의 34.67%입니다. 계약기간은 2026년 말까지입니다.',
    key_points: ['계약금액 520억원, 최근 매출액 대비 34.67%', '계약상대는 글로벌배터리 주식회사', '계약기간 2025-03-14 ~ 2026-12-31'],
    category: 'contract',
    sentiment: 'positive',
    impact: { level: 'high', direction: 'up', reason: '연 매출의 3분의 1이 넘는 대형 계약입니다.' },
    key_figures: [
      { label: '계약금액', value: 52_000_000_000, unit: '원', period: null },
      { label: '최근 매출액 대비', value: 34.67, unit: '%', period: null },
      { label: '계약기간', value: '2025-03-14 ~ 2026-12-31', unit: null, period: null },
    ],
    risks: ['납품 일정이 바뀌면 계약금액이 변동될 수 있습니다.'],
  };
}
