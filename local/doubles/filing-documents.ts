import type { AnalysisInput } from '../../src/analysis/analyzers/analyzer';
import { analysisInput, type FilingMeta } from '../../src/analysis/brief/filing-brief';
import { parseDartDocument } from '../../src/analysis/document/dart-document';

// Hand-written filings in DART's markup for the analyzers' tests: small, each showing one shape
// (a tagged 주요사항보고서 form, the exchange's HTML form, a periodic report with sections, a short
// notice). They test the analyzers' handling, not reading correctness: that is tested on real
// filings (test/fixtures/real-filings/).

/** A form row: cells in order; a value cell starts with '=' (a TE cell in DART's forms, an input field in the exchange's). */
type FormRow = readonly string[];

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** DART's form markup: label cells TD, entered values TE; a row whose first cell is '' continues the label above (ROWSPAN). */
function dartForm(rows: readonly FormRow[]): string {
  const spans = rows.map((row, at) => {
    if (row[0] === '') return 0;
    let span = 1;
    while (rows[at + span]?.[0] === '') span++;
    return span;
  });
  const body = rows
    .map((row, at) => {
      const cells = row
        .map((cell, index) => {
          if (index === 0 && cell === '') return '';
          if (cell.startsWith('=')) return `<TE>${escape(cell.slice(1))}</TE>`;
          const rowSpan = index === 0 && spans[at] > 1 ? ` ROWSPAN="${spans[at]}"` : '';
          return `<TD${rowSpan}>${escape(cell)}</TD>`;
        })
        .join('');
      return `<TR>${cells}</TR>`;
    })
    .join('\n');
  return `<TABLE><TBODY>\n${body}\n</TBODY></TABLE>`;
}

/** A filing of the given metadata read from hand-written markup, as the scheduler reads a real one. */
export function filingInput(meta: FilingMeta, markup: string): AnalysisInput {
  return analysisInput(meta, parseDartDocument(markup));
}

export const RIGHTS_OFFERING = filingInput(
  { rceptNo: '20250314000123', corpName: '가나다바이오', reportName: '주요사항보고서(유상증자결정)', rceptDt: '20250314' },
  `<?xml version="1.0" encoding="utf-8"?>
<DOCUMENT><DOCUMENT-NAME ACODE="11306">주요사항보고서(유상증자결정)</DOCUMENT-NAME><COMPANY-NAME AREGCIK="00000001">가나다바이오</COMPANY-NAME>
<BODY><COVER><P>금융위원회 귀중</P><P>회사명 : 주식회사 가나다바이오</P><P>대표이사 : 홍길동</P></COVER>
<LIBRARY><SECTION-1><TITLE>유상증자 결정</TITLE>
${dartForm([
  ['1. 신주의 종류와 수', '보통주식 (주)', '=4,000,000'],
  ['', '기타주식 (주)', '=-'],
  ['2. 1주당 액면가액 (원)', '=500'],
  ['3. 증자전 발행주식총수 (주)', '보통주식 (주)', '=16,000,000'],
  ['', '기타주식 (주)', '=-'],
  ['4. 자금조달의 목적', '시설자금 (원)', '=20,000,000,000'],
  ['', '운영자금 (원)', '=12,000,000,000'],
  ['', '채무상환자금 (원)', '=-'],
  ['5. 증자방식', '=주주배정후 실권주 일반공모'],
  ['6. 신주 발행가액', '예정발행가액', '보통주식 (원)', '=8,000'],
  ['9. 납입일', '=2025년 05월 15일'],
])}
<P>당사는 신규 생산설비 증설과 운영자금 확보를 위하여 주주배정후 실권주 일반공모 방식으로 보통주 4,000,000주의 유상증자를 결정하였습니다.</P>
<P>향후 청약 결과에 따라 실제 조달금액은 변동될 수 있습니다.</P>
</SECTION-1></LIBRARY></BODY></DOCUMENT>`,
);

/** The exchange's HTML form: values in `span.xforms_input`, the head and its charset dropped. */
function exchangeForm(rows: readonly FormRow[]): string {
  const body = rows
    .map(
      (row) =>
        `<tr>${row
          .map((cell) =>
            cell.startsWith('=')
              ? `<td><span class="xforms_input">${escape(cell.slice(1))}</span></td>`
              : `<td><span>${escape(cell)}</span></td>`,
          )
          .join('')}</tr>`,
    )
    .join('\n');
  return `<table border="1"><tbody>\n${body}\n</tbody></table>`;
}

export const SUPPLY_CONTRACT = filingInput(
  { rceptNo: '20250314000456', corpName: '에이비씨케미칼', reportName: '단일판매ㆍ공급계약체결', rceptDt: '20250314' },
  `<html><head><meta content="text/html; charset=euc-kr" http-equiv="Content-Type"><title>에이비씨케미칼/단일판매ㆍ공급계약체결</title></head>
<body><div class="xforms"><span>단일판매ㆍ공급계약 체결</span>
${exchangeForm([
  ['1. 판매ㆍ공급계약 구분', '=상품공급'],
  ['- 체결계약명', '=2차전지 양극재 공급계약'],
  ['2. 계약내역', '계약금액(원)', '=52,000,000,000'],
  ['최근매출액(원)', '=150,000,000,000'],
  ['매출액대비(%)', '=34.67'],
  ['3. 계약상대', '=글로벌배터리 주식회사'],
  ['5. 계약기간', '시작일', '=2025-03-14'],
  ['종료일', '=2026-12-31'],
  ['9. 기타 투자판단과 관련한 중요사항'],
  [
    '=- 상기 계약금액은 부가가치세가 제외된 금액입니다. - 계약 상대방의 요청에 따라 납품 일정이 변경될 수 있으며, 이 경우 계약금액이 변동될 수 있습니다.',
  ],
])}
</div></body></html>`,
);

export const QUARTERLY_REPORT = filingInput(
  { rceptNo: '20250515000789', corpName: '한빛반도체', reportName: '분기보고서 (2025.03)', rceptDt: '20250515' },
  `<?xml version="1.0" encoding="utf-8"?>
<DOCUMENT><DOCUMENT-NAME ACODE="11013">분기보고서</DOCUMENT-NAME><COMPANY-NAME AREGCIK="00000002">한빛반도체</COMPANY-NAME>
<BODY><COVER><TABLE><TR><TD>사업연도</TD><TU AUNIT="PERIODFROM" AUNITVALUE="20250101">2025년 01월 01일</TU><TD>부터</TD></TR>
<TR><TU AUNIT="PERIODTO" AUNITVALUE="20251231">2025년 12월 31일</TU><TD>까지</TD></TR></TABLE></COVER>
<SECTION-1><TITLE>I. 회사의 개요</TITLE><P>당사는 반도체 장비를 제조, 판매하는 회사로 1999년에 설립되었습니다.</P></SECTION-1>
<SECTION-1><TITLE>II. 사업의 내용</TITLE>
<P>주력 제품인 식각 장비의 수출이 늘어난 것이 실적 개선의 주된 원인입니다.</P></SECTION-1>
<SECTION-1><TITLE>III. 재무에 관한 사항</TITLE>
<SECTION-2><TITLE>1. 요약재무정보</TITLE>
<TABLE><TR><TD>(단위 : 백만원)</TD></TR></TABLE>
<TABLE><THEAD><TR><TH>구분</TH><TH>제25기 1분기</TH><TH>제24기 1분기</TH></TR></THEAD><TBODY>
<TR><TD>매출액</TD><TD>1,234,567</TD><TD>1,071,500</TD></TR>
<TR><TD>영업이익</TD><TD>123,456</TD><TD>△10,234</TD></TR>
<TR><TD>당기순이익</TD><TD>98,765</TD><TD>△15,000</TD></TR>
<TR><TD>자산총계</TD><TD>5,432,100</TD><TD>5,100,000</TD></TR>
</TBODY></TABLE>
<P>환율 변동에 따른 위험과 원자재 가격 상승은 향후 수익성에 영향을 줄 수 있습니다.</P>
</SECTION-2></SECTION-1></BODY></DOCUMENT>`,
);

export const SHORT_NOTICE = filingInput(
  { rceptNo: '20250317000012', corpName: '라온소프트', reportName: '기업설명회(IR)개최(안내공시)', rceptDt: '20250317' },
  `<html><body><span>기업설명회(IR) 개최</span>${exchangeForm([
    ['1. 개최일시', '=2025-03-20 14:00'],
    ['2. 개최장소', '=서울 여의도 본사 대회의실'],
    ['3. 참가대상', '=국내외 기관투자자 및 애널리스트'],
  ])}</body></html>`,
);
