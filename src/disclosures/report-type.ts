/**
 * What kind of filing a report name is: the categories a user filters pushes by. One
 * table, first match wins, read against the name without its leading `[…]` markers
 * (`[기재정정]`, `[첨부추가]`). Derived from the name because the list answer carries no
 * kind; docs/filings-and-companies.md shows the table.
 */
export const REPORT_TYPES = ['periodic', 'major_event', 'securities_issuance', 'ownership', 'exchange', 'audit', 'other'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

const RULES: ReadonlyArray<{ type: Exclude<ReportType, 'other'>; startsWith: readonly string[] }> = [
  // 정기공시: the business, half-year and quarterly reports.
  { type: 'periodic', startsWith: ['사업보고서', '반기보고서', '분기보고서'] },
  // 주요사항보고: decisions the law makes a company report (new shares, buybacks, bonds, mergers).
  { type: 'major_event', startsWith: ['주요사항보고서'] },
  // 발행공시: offering documents and their results.
  {
    type: 'securities_issuance',
    startsWith: ['증권신고서', '투자설명서', '증권발행실적보고서', '일괄신고', '소액공모', '합병등종료보고서', '채무증권', '지분증권'],
  },
  // 지분공시 and the largest shareholder's changes: who holds how much.
  {
    type: 'ownership',
    startsWith: [
      '임원ㆍ주요주주특정증권등소유상황보고서',
      '주식등의대량보유상황보고서',
      '최대주주등소유주식변동신고서',
      '공개매수',
      '의결권대리행사권유',
    ],
  },
  // 외부감사관련: audit reports (the exchange's "감사보고서제출" notice is an exchange disclosure).
  { type: 'audit', startsWith: ['감사보고서 ', '감사보고서(', '연결감사보고서', '감사전재무제표', '외부감사'] },
  // 거래소공시: what the exchange's rules require (contracts, dividends, earnings, IR, shareholder meetings).
  {
    type: 'exchange',
    startsWith: [
      '단일판매ㆍ공급계약',
      '현금ㆍ현물배당',
      '기업설명회',
      '타법인주식및출자증권',
      '주주총회소집',
      '감사보고서제출',
      '조회공시',
      '풍문또는보도',
      '매출액또는손익구조',
      '유형자산',
      '자기주식',
      '유상증자결정',
      '무상증자결정',
      '전환사채권발행결정',
      '기타시장안내',
      '투자판단관련주요경영사항',
    ],
  },
];
/** Fair-disclosure and earnings titles of the exchange carry their kind at the end. */
const EXCHANGE_SUFFIXES = ['(공정공시)', '(안내공시)', '(자율공시)'];

/** The `[…]` markers in front of a title: corrections, attachments, extensions. */
const LEADING_MARKERS = /^(\s*\[[^\]]*\])+\s*/;

export function reportTypeOf(reportName: string): ReportType {
  const name = reportName.replace(LEADING_MARKERS, '').trim();
  for (const rule of RULES) {
    if (rule.startsWith.some((prefix) => name.startsWith(prefix))) return rule.type;
  }
  if (EXCHANGE_SUFFIXES.some((suffix) => name.endsWith(suffix))) return 'exchange';
  return 'other';
}

/** A correction of an earlier filing: a leading marker with 정정 (`[기재정정]`, `[첨부정정]`). */
export function isCorrection(reportName: string): boolean {
  const markers = LEADING_MARKERS.exec(reportName)?.[0] ?? '';
  return markers.includes('정정');
}

/** The disclosure system's public viewer of a filing. */
export function dartViewerUrl(rceptNo: string): string {
  return `https://dart.fss.or.kr/dsaf001/main.do?rcpNo=${rceptNo}`;
}
