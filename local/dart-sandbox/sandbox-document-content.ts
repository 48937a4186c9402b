import type { DartCompany, DartFiling } from '../../src/upstream/dart/dart.types';
import { addDays } from '../../src/common/korea-time';
import type { Prng } from './prng';
import { type Cell, type DocumentHead, Markup, amount, dartDocument, dashedDate, koreanDate, ratio } from './sandbox-document-markup';
import { INSTITUTIONS, companyName, personName } from './sandbox-vocabulary';

/** Size class by extracted text: short under 1,000 characters, long in the tens of thousands, medium between. */
export type DocumentSize = 'short' | 'medium' | 'long';

export interface GeneratedDocument {
  size: DocumentSize;
  /** The main document, well-formed, declared in `encodingLabel`. */
  xml: string;
  /** Further files of the ZIP by entry suffix: `_00760` is served as `{rcept_no}_00760.xml`. */
  attachments: Array<{ suffix: string; xml: string }>;
}

/** What a document is about: the list row and the company.json record (cover: CEO, address, phone). */
export interface DocumentSubject {
  filing: DartFiling;
  company?: DartCompany;
}

interface Context {
  rng: Prng;
  filing: DartFiling;
  corpName: string;
  ceo: string;
  address: string;
  phone: string;
  /** The filing date, YYYYMMDD. */
  date: string;
  year: number;
  products: readonly string[];
  sharesOutstanding: number;
  faceValue: number;
  /** Last year's revenue in won: the scale every other figure follows. */
  revenue: number;
  /** The company's fiscal term number (제N기). */
  term: number;
}

interface Template {
  match: RegExp;
  size: DocumentSize;
  formCode: string;
  coverTitle: (ctx: Context) => string;
  body: (ctx: Context) => string;
  /** Attachments this kind of filing carries (an annual report carries its audit report). */
  attachments?: (ctx: Context) => Array<{ suffix: string; title: string; body: string }>;
}

const PRODUCTS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['전자', ['스마트폰용 카메라모듈', 'OLED 구동칩', '전장용 인쇄회로기판']],
  ['반도체', ['DRAM 테스트 소켓', '웨이퍼 세정장비', '전력반도체']],
  ['바이오', ['바이오시밀러', '체외진단키트', '세포치료제 위탁생산']],
  ['제약', ['전문의약품', '개량신약', '원료의약품']],
  ['화학', ['합성수지', '특수 접착제', '이차전지용 전해액']],
  ['건설', ['주택 신축공사', '플랜트 EPC', '토목 인프라']],
  ['에너지', ['태양광 모듈', 'ESS 배터리 시스템', 'LNG 발전']],
  ['게임', ['모바일 MMORPG', 'PC 온라인게임', '게임 퍼블리싱']],
  ['푸드', ['가정간편식', '냉동만두', '음료']],
  ['중공업', ['LNG 운반선', '해양플랜트', '선박용 엔진']],
];
const DEFAULT_PRODUCTS = ['산업용 부품', '유통 서비스', '소프트웨어 라이선스'];
const COUNTRIES = ['미국', '중국', '베트남', '독일', '일본', '인도', '멕시코', '폴란드', '헝가리', '인도네시아'];
const COUNTERPARTIES = [
  'Northwind Energy Inc.',
  'Lakeside Motors LLC',
  'PT Sinar Batam',
  'Vina Electronics Co., Ltd.',
  'Rhein Automotive GmbH',
  'Osaka Precision K.K.',
];
const AUDITORS = ['삼정회계법인', '삼일회계법인', '한영회계법인', '안진회계법인', '대주회계법인', '신한회계법인'];
const BROKERS = ['한국투자증권', 'NH투자증권', '미래에셋증권', 'KB증권', '삼성증권', '신한투자증권'];

// Sentence banks; {tokens} are filled with fresh values each time they appear.
const BUSINESS = [
  '당사는 {product} 및 {product} 등을 주력으로 생산ㆍ판매하고 있으며, 당기 매출액 중 {product} 부문이 차지하는 비중은 {pct}%입니다.',
  '{year}년 중 {country} 현지법인을 통한 해외 매출이 전년 대비 {pct}% 증가하였습니다.',
  '주요 원재료의 가격은 국제 시세에 연동되며, 당기 평균 매입단가는 전기 대비 {pct}% 상승하였습니다.',
  '당사의 생산설비는 국내 {count}개 공장과 {country} 생산법인으로 구성되어 있으며, 당기 평균 가동률은 {pct}%입니다.',
  '연구개발 조직은 중앙연구소와 {count}개의 사업부 연구팀으로 운영되며, 당기 연구개발비용은 {eok}으로 매출액 대비 {pct}% 수준입니다.',
  '당사는 {country}, {country} 등지의 고객사와 장기공급계약을 체결하고 있으며, 상위 5개 고객사에 대한 매출 비중은 {pct}%입니다.',
  '시장 경쟁은 국내외 {count}여 개 업체 사이에서 이루어지고 있으며, 당사의 국내 시장점유율은 약 {pct}%로 추정됩니다.',
  '{product} 수요는 계절적 요인보다 전방 산업의 설비투자 주기에 더 큰 영향을 받습니다.',
  '당사는 {year}년 {month}월 신규 생산라인 증설을 위해 {eok}의 시설투자를 결정하였으며, 해당 설비는 순차적으로 가동될 예정입니다.',
  '판매 경로는 직접 판매가 {pct}%이며, 대리점 및 유통사를 통한 판매가 나머지를 차지합니다.',
  '환율 변동 위험을 줄이기 위하여 외화 수입과 지출의 통화를 일치시키고, 필요한 경우 통화선도 계약을 활용하고 있습니다.',
  '당기 중 {product} 신제품 {count}종을 출시하였으며, 이 중 일부는 {country} 시장에서 인증을 획득하였습니다.',
];
const RISKS = [
  '{product} 시장의 경쟁 심화로 판매단가가 하락할 경우 당사의 수익성이 악화될 수 있습니다.',
  '당사 매출의 상당 부분이 소수 고객사에 집중되어 있어, 주요 고객사의 발주가 감소하면 실적에 중대한 영향을 미칠 수 있습니다.',
  '원ㆍ달러 환율이 10% 변동할 경우 세전이익은 약 {eok} 변동할 것으로 추정됩니다.',
  '차입금 중 변동금리부 차입금의 비중은 {pct}%로, 시장금리가 상승하면 이자비용이 증가할 수 있습니다.',
  '공모 이후 최대주주 등의 지분율은 {pct}%로 낮아지며, 경영권 안정성이 약화될 가능성이 있습니다.',
  '당사가 피고로 계류 중인 소송 {count}건의 결과는 현재로서는 합리적으로 예측할 수 없습니다.',
  '{country} 정부의 통상 정책 변화는 당사 수출 물량에 직ㆍ간접적인 영향을 줄 수 있습니다.',
  '신규 설비 투자가 계획대로 진행되지 않을 경우 투자금 회수가 지연될 수 있습니다.',
  '재고자산 평가손실이 확대될 경우 당기순이익이 감소할 수 있으며, 보고기간말 재고자산 평가충당금은 {won}입니다.',
  '투자자께서는 본 신고서에 기재된 투자위험요소를 충분히 검토하신 후 투자 결정을 내리시기 바랍니다.',
];
const POLICIES = [
  '회사의 재무제표는 한국채택국제회계기준에 따라 작성되었습니다.',
  '금융자산은 사업모형과 계약상 현금흐름 특성에 따라 상각후원가, 기타포괄손익-공정가치, 당기손익-공정가치로 분류합니다.',
  '재고자산은 취득원가와 순실현가능가치 중 낮은 금액으로 측정하며, 단위원가는 총평균법으로 결정합니다.',
  '유형자산 중 건물은 {count}년, 기계장치는 5~10년의 내용연수에 걸쳐 정액법으로 상각합니다.',
  '수익은 고객과의 계약에서 수행의무를 이행하는 시점에 인식하며, 대부분의 제품 매출은 고객에게 인도되는 시점에 인식합니다.',
  '당기 중 회계정책의 변경은 없으며, 신규 제정 기준서의 적용이 재무제표에 미치는 영향은 중요하지 않습니다.',
  '보고기간말 현재 차입금과 관련하여 담보로 제공된 자산의 장부금액은 {won}입니다.',
  '확정급여채무의 현재가치는 예측단위적립방식으로 계산하며, 할인율은 {pct}%를 적용하였습니다.',
  '당기 법인세비용의 평균유효세율은 {pct}%입니다.',
  '특수관계자와의 거래는 정상적인 거래조건에 따라 이루어졌습니다.',
];

/** Item markers of Korean outlines: 가. 나. 다. … */
const ITEM_LETTERS = [...'가나다라마바사아자차카타파하'];

const NOTE_TITLES = [
  '일반사항',
  '중요한 회계정책',
  '중요한 회계추정 및 가정',
  '금융상품',
  '현금및현금성자산',
  '매출채권 및 기타채권',
  '재고자산',
  '유형자산',
  '무형자산',
  '리스',
  '차입금',
  '사채',
  '퇴직급여',
  '충당부채',
  '자본금',
  '이익잉여금',
  '고객과의 계약에서 생기는 수익',
  '판매비와관리비',
  '법인세',
  '주당이익',
  '특수관계자 거래',
  '우발부채와 약정사항',
  '부문정보',
  '보고기간 후 사건',
];
const NOTE_ROWS = [
  '기초',
  '취득',
  '처분',
  '대체',
  '감가상각',
  '손상',
  '환율변동',
  '기말',
  '유동',
  '비유동',
  '원화',
  '외화',
  '1년 이내',
  '1년 초과 5년 이내',
  '5년 초과',
];

const BALANCE_SHEET: ReadonlyArray<readonly [string, number]> = [
  ['자산', 0],
  ['Ⅰ. 유동자산', 0.42],
  ['현금및현금성자산', 0.09],
  ['단기금융상품', 0.05],
  ['매출채권', 0.12],
  ['재고자산', 0.11],
  ['기타유동자산', 0.05],
  ['Ⅱ. 비유동자산', 0.58],
  ['장기금융상품', 0.03],
  ['관계기업투자', 0.06],
  ['유형자산', 0.36],
  ['무형자산', 0.08],
  ['이연법인세자산', 0.05],
  ['자산총계', 1],
  ['부채', 0],
  ['Ⅰ. 유동부채', 0.27],
  ['매입채무', 0.1],
  ['단기차입금', 0.09],
  ['미지급금', 0.08],
  ['Ⅱ. 비유동부채', 0.15],
  ['사채', 0.06],
  ['장기차입금', 0.07],
  ['순확정급여부채', 0.02],
  ['부채총계', 0.42],
  ['자본', 0],
  ['자본금', 0.04],
  ['자본잉여금', 0.09],
  ['이익잉여금', 0.43],
  ['기타자본구성요소', 0.02],
  ['자본총계', 0.58],
  ['부채와자본총계', 1],
];
const INCOME_STATEMENT: ReadonlyArray<readonly [string, number]> = [
  ['매출액', 1],
  ['매출원가', 0.78],
  ['매출총이익', 0.22],
  ['판매비와관리비', 0.14],
  ['영업이익', 0.08],
  ['기타수익', 0.01],
  ['기타비용', 0.012],
  ['금융수익', 0.008],
  ['금융비용', 0.011],
  ['법인세비용차감전순이익', 0.075],
  ['법인세비용', 0.017],
  ['당기순이익', 0.058],
  ['기타포괄손익', 0.004],
  ['총포괄이익', 0.062],
];
const CASH_FLOWS: ReadonlyArray<readonly [string, number]> = [
  ['Ⅰ. 영업활동현금흐름', 0.11],
  ['당기순이익', 0.058],
  ['조정', 0.07],
  ['운전자본의 변동', -0.018],
  ['법인세 납부', -0.015],
  ['Ⅱ. 투자활동현금흐름', -0.09],
  ['유형자산의 취득', -0.08],
  ['무형자산의 취득', -0.01],
  ['단기금융상품의 순증감', 0.004],
  ['Ⅲ. 재무활동현금흐름', -0.01],
  ['차입금의 순증감', 0.012],
  ['배당금의 지급', -0.02],
  ['Ⅳ. 현금및현금성자산의 증감', 0.01],
];

const TEMPLATES: readonly Template[] = [
  {
    match: /^사업보고서/,
    size: 'long',
    formCode: '11011',
    coverTitle: () => '사 업 보 고 서',
    body: (ctx) => periodicReport(ctx, 'annual'),
    attachments: (ctx) => [auditAttachment(ctx)],
  },
  {
    match: /^반기보고서/,
    size: 'long',
    formCode: '11012',
    coverTitle: () => '반 기 보 고 서',
    body: (ctx) => periodicReport(ctx, 'half'),
    attachments: (ctx) => [reviewAttachment(ctx)],
  },
  {
    match: /^분기보고서/,
    size: 'long',
    formCode: '11013',
    coverTitle: () => '분 기 보 고 서',
    body: (ctx) => periodicReport(ctx, 'quarter'),
  },
  {
    match: /^(연결)?감사보고서 \(/,
    size: 'long',
    formCode: '00760',
    coverTitle: (ctx) => `${ctx.year - 1}년 ${ctx.filing.report_nm.startsWith('연결') ? '연결' : ''}감사보고서`,
    body: auditReport,
  },
  {
    match: /^(증권신고서|투자설명서)/,
    size: 'long',
    formCode: '10001',
    coverTitle: (ctx) => plainName(ctx),
    body: prospectus,
    attachments: (ctx) => (ctx.rng.chance(0.5) ? [auditAttachment(ctx)] : []),
  },
  { match: /특정증권등소유상황보고서/, size: 'short', formCode: '00430', coverTitle: plainName, body: insiderReport },
  { match: /대량보유상황보고서\(약식\)/, size: 'short', formCode: '00410', coverTitle: plainName, body: (ctx) => holderReport(ctx, false) },
  { match: /대량보유상황보고서/, size: 'medium', formCode: '00400', coverTitle: plainName, body: (ctx) => holderReport(ctx, true) },
  { match: /단일판매/, size: 'short', formCode: '00138', coverTitle: plainName, body: supplyContract },
  { match: /잠정\)?실적/, size: 'short', formCode: '00521', coverTitle: plainName, body: preliminaryEarnings },
  { match: /유상증자결정/, size: 'medium', formCode: '00661', coverTitle: () => '주요사항보고서', body: rightsOffering },
  { match: /자기주식취득결정/, size: 'medium', formCode: '00664', coverTitle: () => '주요사항보고서', body: buyback },
  { match: /전환사채권발행결정/, size: 'medium', formCode: '00667', coverTitle: () => '주요사항보고서', body: convertibleBond },
  { match: /최대주주등소유주식변동/, size: 'short', formCode: '00340', coverTitle: plainName, body: majorHolderChange },
  { match: /배당결정/, size: 'short', formCode: '00140', coverTitle: plainName, body: dividend },
  { match: /기업설명회/, size: 'short', formCode: '00165', coverTitle: plainName, body: investorMeeting },
  { match: /타법인주식및출자증권취득결정/, size: 'medium', formCode: '00144', coverTitle: plainName, body: equityAcquisition },
  { match: /주주총회소집결의/, size: 'medium', formCode: '00160', coverTitle: plainName, body: shareholdersMeeting },
  { match: /회사합병결정/, size: 'medium', formCode: '00670', coverTitle: () => '주요사항보고서', body: merger },
  { match: /감사보고서제출/, size: 'short', formCode: '00130', coverTitle: plainName, body: auditNotice },
];
/** Everything else (issuance results, small offerings, group disclosures): a notice of a few thousand characters. */
const GENERIC: Template = { match: /./, size: 'medium', formCode: '00999', coverTitle: plainName, body: genericNotice };

/**
 * One filing's document: the form chosen by the report name, filled with figures and names drawn
 * from `rng`. The same rng state gives the same document.
 */
export function generateDocument(rng: Prng, subject: DocumentSubject, encodingLabel: string): GeneratedDocument {
  const ctx = contextFor(rng, subject);
  const name = reportName(subject.filing);
  const template = TEMPLATES.find((each) => each.match.test(name)) ?? GENERIC;
  const xml = dartDocument(headOf(ctx, template, subject.filing.report_nm), template.body(ctx), encodingLabel);
  const attachments = (template.attachments?.(ctx) ?? []).map(({ suffix, title, body }) => ({
    suffix,
    xml: dartDocument(headOf(ctx, { ...template, formCode: suffix.slice(1), coverTitle: () => title }, title), body, encodingLabel),
  }));
  return { size: template.size, xml, attachments };
}

/** The report name without correction prefixes such as [기재정정]. */
function reportName(filing: DartFiling): string {
  return filing.report_nm.replace(/^(\[[^\]]*\])+/, '');
}

function plainName(ctx: Context): string {
  return reportName(ctx.filing);
}

function contextFor(rng: Prng, { filing, company }: DocumentSubject): Context {
  const corpName = filing.corp_name.trim();
  const products = PRODUCTS.find(([key]) => corpName.includes(key))?.[1] ?? DEFAULT_PRODUCTS;
  return {
    rng,
    filing,
    corpName,
    ceo: company?.ceo_nm || personName(rng),
    address: company?.adres || '서울특별시 영등포구 여의대로 108',
    phone: company?.phn_no || `02-${rng.int(200, 999)}-${rng.digits(4)}`,
    date: filing.rcept_dt,
    year: Number(filing.rcept_dt.slice(0, 4)),
    products,
    sharesOutstanding: rng.int(8, 400) * 1_000_000 + rng.int(0, 999_999),
    faceValue: rng.pick([100, 500, 1_000, 5_000]),
    revenue: rng.int(300, 200_000) * 100_000_000 + rng.int(0, 99_999_999),
    term: rng.int(12, 68),
  };
}

/** A report of a business year ("사업보고서 (2025.12)", "감사보고서 (2025.12)"): the cover tags the year, as real covers do. */
function coverPeriod(reportName: string): Cell[][] {
  const month = /\((\d{4})\.(\d{2})\)/.exec(reportName);
  if (month === null) return [];
  const year = Number(month[1]);
  // A year ending in March runs from April of the year before.
  const [from, to] = month[2] === '03' ? [`${year - 1}0401`, `${year}0331`] : [`${year}0101`, `${year}1231`];
  return [
    ['사업연도', { text: koreanDate(from), tag: 'TU', aunit: 'PERIODFROM', aunitValue: from }, '부터'],
    ['', { text: koreanDate(to), tag: 'TU', aunit: 'PERIODTO', aunitValue: to }, '까지'],
  ];
}

function headOf(ctx: Context, template: Template, documentName: string): DocumentHead {
  return {
    documentName,
    formCode: template.formCode,
    corpCode: ctx.filing.corp_code,
    corpName: ctx.corpName,
    coverTitle: template.coverTitle(ctx),
    coverLines: [
      ...coverPeriod(documentName),
      ['회사명 :', ctx.corpName],
      ['대표이사 :', ctx.ceo],
      ['본점소재지 :', ctx.address],
      ['(전화)', ctx.phone],
      ['작성책임자 :', `(직책) 재무팀장 (성명) ${personName(ctx.rng)}`],
    ],
    summary: [
      ['COMPANY_NAME', ctx.corpName],
      ['RECEIPT_DATE', ctx.date],
      ['STOCK_CODE', ctx.filing.stock_code],
    ],
    formulaDate: `${ctx.year - 1}0101`,
  };
}

// Figures and sentences.

function fill(ctx: Context, template: string): string {
  const { rng } = ctx;
  return template.replace(/\{(\w+)\}/g, (_, token: string) => {
    switch (token) {
      case 'product':
        return rng.pick(ctx.products);
      case 'pct':
        return ratio(0.5 + rng.next() * 45);
      case 'year':
        return String(ctx.year - rng.int(0, 2));
      case 'month':
        return String(rng.int(1, 12));
      case 'country':
        return rng.pick(COUNTRIES);
      case 'count':
        return String(rng.int(2, 40));
      case 'eok':
        return `${amount(rng.int(10, 9_000))}억원`;
      case 'won':
        return `${amount(rng.int(1_000, 900_000) * 1_000_000)}원`;
      default:
        return token;
    }
  });
}

/** `sentences` different sentences of `bank`, filled. */
function paragraph(ctx: Context, bank: readonly string[], sentences = ctx.rng.int(2, 5)): string {
  const left = [...bank];
  const picked: string[] = [];
  while (picked.length < sentences && left.length > 0) picked.push(fill(ctx, left.splice(ctx.rng.int(0, left.length - 1), 1)[0]));
  return picked.join(' ');
}

function won(value: number): string {
  return amount(value);
}

/** `share` of the revenue, jittered by a few percent, for one period back. */
function figure(ctx: Context, share: number, periodsBack = 0): number {
  const growth = 1 - 0.06 * periodsBack;
  return Math.round(ctx.revenue * share * growth * (0.96 + 0.08 * ctx.rng.next()));
}

function statementRows(ctx: Context, lines: ReadonlyArray<readonly [string, number]>, periods: number, scale: number): Cell[][] {
  return lines.map(([label, share]) => [
    label,
    ...Array.from({ length: periods }, (_, back) => (share === 0 ? '' : won(figure(ctx, share, back) / scale))),
  ]);
}

function termLabels(ctx: Context, periods: number, suffix = ''): string[] {
  return Array.from({ length: periods }, (_, back) => `제 ${ctx.term - back} 기${suffix}`);
}

function statements(ctx: Context, m: Markup, prefix: string, suffix = ''): void {
  const header = ['과목', ...termLabels(ctx, 3, suffix)];
  m.section(2, `${prefix}재무상태표`).table([header, ...statementRows(ctx, BALANCE_SHEET, 3, 1)], { header: true, unit: '(단위 : 원)' });
  m.section(2, `${prefix}포괄손익계산서`).table([header, ...statementRows(ctx, INCOME_STATEMENT, 3, 1)], {
    header: true,
    unit: '(단위 : 원)',
  });
  m.p(`기본주당이익은 ${won(figure(ctx, 0.058) / ctx.sharesOutstanding)}원이며, 희석주당이익은 기본주당이익과 같습니다.`);
  m.section(2, `${prefix}현금흐름표`).table([header, ...statementRows(ctx, CASH_FLOWS, 3, 1)], { header: true, unit: '(단위 : 원)' });
}

/** Notes to the financial statements, added until the whole document holds about `target` characters. */
function notes(ctx: Context, m: Markup, level: number, reached: () => number, target: number): void {
  const { rng } = ctx;
  for (let round = 0; reached() < target; round++) {
    for (let i = 0; i < NOTE_TITLES.length && reached() < target; i++) {
      const number = round === 0 ? `${i + 1}.` : `${i + 1}-${round + 1}.`;
      m.section(level, `${number} ${NOTE_TITLES[i]}${round === 0 ? '' : ' (계속)'}`);
      m.p(paragraph(ctx, POLICIES));
      if (rng.chance(0.7)) {
        const rows = Array.from({ length: rng.int(4, 10) }, () => [
          rng.pick(NOTE_ROWS),
          won(figure(ctx, rng.next() * 0.05)),
          won(figure(ctx, rng.next() * 0.05, 1)),
        ]);
        m.table([['구분', '당기말', '전기말'], ...rows], { header: true, unit: '(단위 : 천원)' });
      }
      if (rng.chance(0.4)) m.p(paragraph(ctx, POLICIES, 2));
    }
  }
}

// Long forms.

function periodicReport(ctx: Context, period: 'annual' | 'half' | 'quarter'): string {
  const { rng } = ctx;
  // Annual reports run from tens of thousands of characters to well over 100,000; interim ones are shorter.
  const target = period === 'annual' ? rng.int(60_000, 170_000) : rng.int(25_000, 70_000);
  const suffix = period === 'annual' ? '' : period === 'half' ? ' 반기' : ' 분기';

  const front = new Markup();
  front.section(1, 'I. 회사의 개요').section(2, '1. 회사의 개요');
  front.table([
    ['회사의 법적ㆍ상업적 명칭', `주식회사 ${ctx.corpName}`],
    ['설립일자', koreanDate(`${ctx.year - ctx.term}${String(rng.int(1, 12)).padStart(2, '0')}01`)],
    ['본사의 주소', ctx.address],
    ['전화번호', ctx.phone],
    ['주요 사업', ctx.products.join(', ')],
    ['중소기업 해당 여부', rng.chance(0.3) ? '해당' : '미해당'],
  ]);
  front.p(paragraph(ctx, BUSINESS));
  front.section(2, '2. 회사의 연혁');
  front.table(
    [
      ['일자', '내용'],
      ...Array.from({ length: rng.int(6, 14) }, (_, i) => [
        dashedDate(addDays(ctx.date, -400 * (i + 1))),
        fill(
          ctx,
          rng.pick([
            '{country} 현지법인 설립',
            '{product} 양산 개시',
            '본점 소재지 이전',
            '대표이사 변경',
            '{product} 공장 준공',
            '코스닥시장 상장',
          ]),
        ),
      ]),
    ],
    { header: true },
  );
  front.section(2, '3. 주식의 총수 등');
  const treasury = rng.int(0, ctx.sharesOutstanding / 20);
  front.table(
    [
      ['구분', '보통주', '우선주', '합계'],
      ['발행할 주식의 총수', won(ctx.sharesOutstanding * 4), '-', won(ctx.sharesOutstanding * 4)],
      ['발행한 주식의 총수', won(ctx.sharesOutstanding), '-', won(ctx.sharesOutstanding)],
      ['자기주식수', won(treasury), '-', won(treasury)],
      ['유통주식수', won(ctx.sharesOutstanding - treasury), '-', won(ctx.sharesOutstanding - treasury)],
    ],
    { header: true, unit: '(단위 : 주)' },
  );
  front.section(1, 'II. 사업의 내용').section(2, '1. 사업의 개요');
  for (let i = rng.int(3, 6); i > 0; i--) front.p(paragraph(ctx, BUSINESS));
  front.section(2, '2. 주요 제품 및 서비스');
  const shares = ctx.products.map(() => rng.int(10, 60));
  const total = shares.reduce((sum, each) => sum + each, 0);
  front.table(
    [
      ['사업부문', '품목', '매출액', '비율'],
      ...ctx.products.map((product, i) => [
        `${product} 부문`,
        product,
        `${won((ctx.revenue * shares[i]) / total / 100_000_000)}억원`,
        `${ratio((100 * shares[i]) / total)}%`,
      ]),
    ],
    { header: true },
  );
  front.section(2, '3. 위험관리 및 파생거래');
  for (let i = rng.int(2, 4); i > 0; i--) front.p(paragraph(ctx, RISKS));

  const back = new Markup();
  back.section(1, 'IV. 이사의 경영진단 및 분석의견');
  for (let i = rng.int(3, 6); i > 0; i--) back.p(paragraph(ctx, BUSINESS));
  back.section(1, 'V. 회계감사인의 감사의견 등');
  back.table(
    [
      ['사업연도', '감사인', '감사의견', '핵심감사사항'],
      ...termLabels(ctx, 3, suffix).map((term) => [
        term,
        rng.pick(AUDITORS),
        '적정',
        rng.pick(['수익인식의 적정성', '재고자산 평가', '영업권 손상검토', '해당사항 없음']),
      ]),
    ],
    { header: true },
  );
  back.section(1, 'VII. 주주에 관한 사항');
  const holders = Array.from({ length: rng.int(3, 9) }, (_, i) => {
    const stake = i === 0 ? 15 + rng.next() * 25 : rng.next() * 4;
    return [
      i === 0 ? personName(rng) : rng.chance(0.3) ? rng.pick(INSTITUTIONS) : personName(rng),
      i === 0 ? '본인' : rng.pick(['친인척', '계열회사', '임원', '재단']),
      '보통주',
      won((ctx.sharesOutstanding * stake) / 100),
      `${ratio(stake)}%`,
    ];
  });
  back.table([['성명', '관계', '주식의 종류', '소유주식수(주)', '지분율'], ...holders], { header: true });
  back.section(1, 'VIII. 임원 및 직원 등에 관한 사항');
  back.table(
    [
      ['성명', '직위', '등기임원 여부', '담당업무', '소유주식수(주)'],
      ...Array.from({ length: rng.int(6, 22) }, (_, i) => [
        i === 0 ? ctx.ceo : personName(rng),
        i === 0 ? '대표이사' : rng.pick(['사내이사', '사외이사', '전무', '상무', '감사']),
        i < 5 ? '등기임원' : '미등기',
        rng.pick(['경영총괄', '재무', '연구개발', '영업', '생산', '감사위원']),
        won(rng.chance(0.5) ? rng.int(0, 300_000) : 0),
      ]),
    ],
    { header: true },
  );
  back.section(1, 'XI. 그 밖에 투자자 보호를 위하여 필요한 사항');
  back.p(paragraph(ctx, RISKS));
  back.p(`${koreanDate(ctx.date)} 현재 제재 현황 및 공시내용 진행 상황에 관하여 기재할 사항은 없습니다.`);

  const middle = new Markup();
  middle.section(1, 'III. 재무에 관한 사항').section(2, '1. 요약재무정보');
  middle.table([['과목', ...termLabels(ctx, 3, suffix)], ...statementRows(ctx, INCOME_STATEMENT.slice(0, 5), 3, 1_000_000)], {
    header: true,
    unit: '(단위 : 백만원)',
  });
  statements(ctx, middle, '2. 연결', suffix);
  middle.section(2, '3. 연결재무제표 주석');
  notes(ctx, middle, 3, () => front.textLength + middle.textLength + back.textLength, target);
  return [front.toString(), middle.toString(), back.toString()].join('\n');
}

const AUDIT_OPINION = [
  '우리는 {corp}(이하 "회사")의 재무제표를 감사하였습니다. 해당 재무제표는 재무상태표, 포괄손익계산서, 자본변동표, 현금흐름표 그리고 중요한 회계정책 정보를 포함한 재무제표의 주석으로 구성되어 있습니다.',
  '우리의 의견으로는 별첨된 회사의 재무제표는 회사의 재무상태와 재무성과 및 현금흐름을 한국채택국제회계기준에 따라, 중요성의 관점에서 공정하게 표시하고 있습니다.',
  '우리는 대한민국의 회계감사기준에 따라 감사를 수행하였습니다. 우리는 재무제표감사와 관련된 대한민국의 윤리적 요구사항에 따라 회사로부터 독립적이며, 그러한 요구사항에 따른 기타의 윤리적 책임들을 이행하였습니다.',
  '경영진은 한국채택국제회계기준에 따라 재무제표를 작성하고 공정하게 표시할 책임이 있으며, 부정이나 오류로 인한 중요한 왜곡표시가 없는 재무제표를 작성하는 데 필요하다고 결정한 내부통제에 대해서도 책임이 있습니다.',
  '우리의 목적은 회사의 재무제표에 전체적으로 부정이나 오류로 인한 중요한 왜곡표시가 없는지에 대하여 합리적인 확신을 얻어 우리의 의견이 포함된 감사보고서를 발행하는 것입니다.',
];

function auditBody(ctx: Context, target: number): string {
  const m = new Markup();
  const auditor = ctx.rng.pick(AUDITORS);
  m.section(1, '독립된 감사인의 감사보고서');
  m.p(`${ctx.corpName} 주주 및 이사회 귀중`);
  m.section(2, '감사의견');
  for (const text of AUDIT_OPINION) m.p(text.replace('{corp}', ctx.corpName));
  m.section(2, '핵심감사사항');
  m.p(paragraph(ctx, POLICIES));
  m.p(`${auditor} 대표이사 ${personName(ctx.rng)}`);
  m.p(koreanDate(addDays(ctx.date, -ctx.rng.int(3, 20))));
  m.section(1, '(첨부)재무제표');
  statements(ctx, m, '');
  m.section(1, '주석');
  notes(ctx, m, 2, () => m.textLength, target);
  return m.toString();
}

function auditReport(ctx: Context): string {
  return auditBody(ctx, ctx.rng.int(15_000, 60_000));
}

function auditAttachment(ctx: Context): { suffix: string; title: string; body: string } {
  return { suffix: '_00760', title: '감사보고서', body: auditBody(ctx, ctx.rng.int(6_000, 20_000)) };
}

function reviewAttachment(ctx: Context): { suffix: string; title: string; body: string } {
  const m = new Markup();
  m.section(1, '독립된 감사인의 반기재무제표 검토보고서');
  m.p(`${ctx.corpName} 주주 및 이사회 귀중`);
  m.p(
    '우리의 검토결과 상기 반기재무제표가 한국채택국제회계기준 제1034호(중간재무보고)에 따라 중요성의 관점에서 공정하게 표시하고 있지 않다는 점이 발견되지 아니하였습니다.',
  );
  statements(ctx, m, '반기', ' 반기');
  return { suffix: '_00761', title: '반기검토보고서', body: m.toString() };
}

function prospectus(ctx: Context): string {
  const { rng } = ctx;
  const target = rng.int(40_000, 120_000);
  const m = new Markup();
  m.section(1, '제1부 모집 또는 매출에 관한 사항').section(2, 'I. 모집 또는 매출에 관한 일반사항').section(3, '1. 공모개요');
  let total: number;
  if (ctx.filing.report_nm.includes('채무증권')) {
    total = rng.int(5, 300) * 10_000_000_000;
    m.table(
      [
        ['증권의 종류', '회차', '권면(전자등록)총액(원)', '이자율(%)', '만기일', '모집(매출)방법'],
        [
          '무기명식 이권부 무보증사채',
          String(rng.int(10, 300)),
          won(total),
          ratio(2 + rng.next() * 4),
          dashedDate(addDays(ctx.date, 365 * rng.int(2, 10))),
          '일반공모',
        ],
      ],
      { header: true },
    );
    m.section(3, '2. 공모가격 결정방법');
    m.p(
      `본 사채의 이자율은 수요예측 결과를 반영하여 개별민평 수익률에 ${rng.int(-30, 50)}bp를 가산한 수준에서 대표주관회사와 협의하여 결정합니다.`,
    );
  } else {
    const price = rng.int(20, 900) * 50;
    const count = rng.int(5, 80) * 100_000;
    total = count * price;
    m.table(
      [
        ['증권의 종류', '증권수량(주)', '액면가액(원)', '모집(매출)가액(원)', '모집(매출)총액(원)', '모집(매출)방법'],
        [
          '기명식보통주',
          won(count),
          won(ctx.faceValue),
          won(price),
          won(total),
          rng.pick(['주주배정후 실권주 일반공모', '일반공모', '주주우선공모']),
        ],
      ],
      { header: true },
    );
    m.section(3, '2. 공모가격 결정방법');
    m.p(
      `모집가액은 「증권의 발행 및 공시 등에 관한 규정」 제5-18조에 의거하여 청약일 전 제3거래일을 기산일로 한 1주일 가중산술평균주가에 할인율 ${rng.int(10, 25)}%를 적용하여 산정합니다.`,
    );
  }
  m.section(3, '3. 인수 등에 관한 사항');
  m.table(
    [
      ['인수인', '주소', '인수금액(원)', '인수대가(원)'],
      [rng.pick(BROKERS), '서울특별시 영등포구 여의대로 60', won(total), won(total * 0.015)],
    ],
    { header: true },
  );

  const issuer = new Markup();
  issuer.section(1, '제1부 모집 또는 매출에 관한 사항 (계속)').section(2, 'V. 자금의 사용목적');
  issuer.table(
    [
      ['구분', '금액(원)'],
      ['시설자금', won(total * 0.6)],
      ['운영자금', won(total * 0.3)],
      ['채무상환자금', won(total * 0.1)],
    ],
    { header: true },
  );
  issuer.section(1, '제2부 발행인에 관한 사항').section(2, 'I. 회사의 개요');
  issuer.p(paragraph(ctx, BUSINESS));
  issuer.section(2, 'III. 재무에 관한 사항');
  issuer.table([['과목', ...termLabels(ctx, 3)], ...statementRows(ctx, INCOME_STATEMENT.slice(0, 5), 3, 1_000_000)], {
    header: true,
    unit: '(단위 : 백만원)',
  });

  const risks = new Markup();
  risks.section(2, 'III. 투자위험요소');
  const groups = ['1. 사업위험', '2. 회사위험', '3. 기타위험'];
  for (let i = 0; m.textLength + risks.textLength + issuer.textLength < target; i++) {
    // Six risks a group; whatever the target still needs goes under the last group.
    if (i % 6 === 0) risks.section(3, groups[Math.min(2, Math.floor(i / 6))] + (i >= 18 ? ' (계속)' : ''));
    risks.section(
      4,
      `${ITEM_LETTERS[i % ITEM_LETTERS.length]}. ${fill(ctx, rng.pick(['{product} 업황 변동 위험', '원재료 가격 변동 위험', '환율 변동 위험', '유동성 위험', '소송 관련 위험', '지분 희석 위험', '최대주주 변경 위험']))}`,
    );
    for (let j = rng.int(2, 4); j > 0; j--) risks.p(paragraph(ctx, RISKS));
  }
  return [m.toString(), risks.toString(), issuer.toString()].join('\n');
}

// Short and medium forms: the tables of exchange notices and major-event reports.

function insiderReport(ctx: Context): string {
  const { rng } = ctx;
  const before = rng.int(0, 200_000);
  const change = rng.int(-before, 50_000) || 1_000;
  const m = new Markup();
  m.section(1, '1. 보고자에 관한 사항');
  m.table([
    ['성명', ctx.filing.flr_nm],
    ['회사와의 관계', rng.pick(['발행회사 임원', '주요주주', '발행회사 임원 겸 주요주주'])],
    ['직위명', rng.pick(['사내이사', '상무', '전무', '사외이사'])],
  ]);
  m.section(1, '2. 특정증권등의 소유상황');
  m.table(
    [
      ['구분', '보고서 작성기준일', '주식수(주)', '비율(%)'],
      ['직전 보고서', dashedDate(addDays(ctx.date, -rng.int(30, 300))), won(before), ratio((100 * before) / ctx.sharesOutstanding)],
      [
        '이번 보고서',
        dashedDate(addDays(ctx.date, -rng.int(1, 5))),
        won(before + change),
        ratio((100 * (before + change)) / ctx.sharesOutstanding),
      ],
      ['증감', '', won(change), ''],
    ],
    { header: true },
  );
  m.section(1, '3. 변동 내역');
  m.table(
    [
      ['보고사유', '변동일', '증감(주)', '단가(원)'],
      [change > 0 ? '장내매수(+)' : '장내매도(-)', dashedDate(addDays(ctx.date, -2)), won(change), won(rng.int(10, 2_000) * 50)],
    ],
    { header: true },
  );
  m.p('※ 변동일은 결제일 기준입니다.');
  return m.toString();
}

function holderReport(ctx: Context, full: boolean): string {
  const { rng } = ctx;
  const stake = 5 + rng.next() * 10;
  const m = new Markup();
  m.section(1, '1. 보고자 및 보고사유');
  m.table([
    ['보고자', ctx.filing.flr_nm],
    ['보고구분', rng.pick(['신규', '변동', '변경'])],
    ['보유목적', rng.pick(['단순투자', '일반투자', '경영권 영향'])],
    ['보고사유', rng.pick(['장내매매', '특별관계자 추가', '유상증자 참여'])],
  ]);
  m.section(1, '2. 보유주식등의 수 및 보유비율');
  m.table(
    [
      ['구분', '보고서 작성기준일', '보유주식등의 수(주)', '보유비율(%)'],
      [
        '직전 보고서',
        dashedDate(addDays(ctx.date, -rng.int(60, 400))),
        won((ctx.sharesOutstanding * (stake - 1.1)) / 100),
        ratio(stake - 1.1),
      ],
      ['이번 보고서', dashedDate(addDays(ctx.date, -5)), won((ctx.sharesOutstanding * stake) / 100), ratio(stake)],
    ],
    { header: true },
  );
  m.p('※ 보유비율은 발행주식등의 총수 대비 비율입니다.');
  if (full) {
    m.section(1, '3. 세부변동내역');
    m.table(
      [
        ['성명', '변동일', '취득/처분 방법', '변동 내역(주)', '단가(원)'],
        ...Array.from({ length: rng.int(20, 60) }, (_, i) => [
          ctx.filing.flr_nm,
          dashedDate(addDays(ctx.date, -30 + i)),
          rng.pick(['장내매수(+)', '장내매도(-)', '시간외매매(+)']),
          won(rng.int(1, 90_000)),
          won(rng.int(100, 2_000) * 50),
        ]),
      ],
      { header: true },
    );
    m.section(1, '4. 보유목적');
    m.p(
      `보고자는 ${ctx.corpName}의 주식을 ${rng.pick(['포트폴리오 운용 목적의 단순투자', '배당 확대 요구 등 일반투자'])} 목적으로 보유하고 있으며, 향후 시장 상황에 따라 추가 취득 또는 처분할 수 있습니다.`,
    );
    m.p(paragraph(ctx, RISKS, 2));
  }
  return m.toString();
}

function supplyContract(ctx: Context): string {
  const { rng } = ctx;
  const value = rng.int(10, 3_000) * 100_000_000 + rng.int(0, 99_999) * 1_000;
  const start = addDays(ctx.date, rng.int(0, 10));
  const m = new Markup();
  m.section(1, '단일판매ㆍ공급계약 체결');
  m.table([
    ['1. 판매ㆍ공급계약 내용', '', `${rng.pick(ctx.products)} 공급`],
    ['2. 계약내역', '계약금액(원)', won(value)],
    ['', '최근매출액(원)', won(ctx.revenue)],
    ['', '매출액대비(%)', ratio((100 * value) / ctx.revenue)],
    ['3. 계약상대', '', rng.pick(COUNTERPARTIES)],
    ['4. 판매ㆍ공급지역', '', rng.pick(COUNTRIES)],
    ['5. 계약기간', '시작일', dashedDate(start)],
    ['', '종료일', dashedDate(addDays(start, rng.int(90, 900)))],
    ['6. 계약(수주)일자', '', dashedDate(ctx.date)],
  ]);
  m.p('※ 계약금액은 부가가치세 별도 금액이며, 환율은 계약일 기준환율을 적용하였습니다.');
  return m.toString();
}

/** The exchange's preliminary earnings form: the quarter before the filing, against the prior quarter and the same quarter a year earlier. */
function preliminaryEarnings(ctx: Context): string {
  const { rng } = ctx;
  const filed = Number(ctx.date.slice(4, 6));
  const quarter = Math.floor((filed - 1) / 3) || 4;
  const year = quarter === 4 && filed <= 3 ? ctx.year - 1 : ctx.year;
  const range = (y: number, q: number): [string, string] => [
    dashedDate(`${y}${String(q * 3 - 2).padStart(2, '0')}01`),
    dashedDate(`${y}${String(q * 3).padStart(2, '0')}${q === 1 || q === 4 ? '31' : '30'}`),
  ];
  const change = (now: number, before: number): string => (before > 0 && now > 0 ? ratio((100 * (now - before)) / before) : '-');
  const rows = (label: string, share: number): Cell[][] => {
    const now = Math.round(figure(ctx, share) / 100_000_000 / 4);
    const lastQuarter = Math.round(now * (0.85 + 0.3 * rng.next()));
    const lastYear = Math.round(now * (0.7 + 0.5 * rng.next()));
    return [
      [label, '당해실적', won(now), won(lastQuarter), change(now, lastQuarter), won(lastYear), change(now, lastYear)],
      [label, '누계실적', won(now * quarter), '-', '-', won(lastYear * quarter), change(now, lastYear)],
    ];
  };
  const m = new Markup();
  m.section(1, '연결재무제표기준영업(잠정)실적(공정공시)');
  m.table([
    ['당기실적', ...range(year, quarter)],
    ['전년동기실적', ...range(year - 1, quarter)],
  ]);
  m.p('※ 동 정보는 잠정치로서 향후 확정치와는 다를 수 있음.');
  m.table([
    ['1. 연결실적내용', '단위 : 억원, %'],
    ['구분', '', '당기실적', '전기실적', '전기대비증감율(%)', '전년동기실적', '전년동기대비증감율(%)'],
    ...rows('매출액', 1),
    ...rows('영업이익', 0.08),
    ...rows('법인세비용차감전계속사업이익', 0.075),
    ...rows('당기순이익', 0.058),
  ]);
  m.table([
    ['정보제공자', 'IR팀'],
    ['정보제공대상자', '국내외 투자자 및 언론'],
    ['정보제공(예정)일시', `${koreanDate(ctx.date)} 기업설명회 이후`],
  ]);
  m.p('※ 상기 실적은 외부감사인의 검토가 완료되지 않은 잠정 수치로, 검토 결과에 따라 달라질 수 있습니다.');
  return m.toString();
}

function rightsOffering(ctx: Context): string {
  const { rng } = ctx;
  const count = Math.round(ctx.sharesOutstanding * (0.05 + rng.next() * 0.3));
  const price = rng.int(20, 900) * 50;
  const total = count * price;
  const subscription = addDays(ctx.date, rng.int(40, 70));
  const m = new Markup();
  m.section(1, '유상증자 결정');
  m.table([
    ['1. 신주의 종류와 수', { text: '보통주식', tag: 'TU' }, `${won(count)}주`],
    ['2. 1주당 액면가액(원)', '', won(ctx.faceValue)],
    ['3. 증자전 발행주식총수(주)', { text: '보통주식', tag: 'TU' }, won(ctx.sharesOutstanding)],
    ['4. 자금조달의 목적', '시설자금(원)', won(total * 0.5)],
    ['', '운영자금(원)', won(total * 0.3)],
    ['', '채무상환자금(원)', won(total * 0.2)],
    ['5. 증자방식', '', rng.pick(['주주배정후 실권주 일반공모', '제3자배정증자', '일반공모증자'])],
    ['6. 신주 발행가액', '예정발행가(원)', won(price)],
    ['7. 할인율 또는 할증률(%)', '', String(rng.int(10, 25))],
    ['8. 신주배정기준일', '', dashedDate(addDays(ctx.date, rng.int(14, 30)))],
    ['9. 청약예정일', '시작일', dashedDate(subscription)],
    ['', '종료일', dashedDate(addDays(subscription, 1))],
    ['10. 납입일', '', dashedDate(addDays(subscription, 7))],
    ['11. 대표주관회사', '', rng.pick(BROKERS)],
    ['12. 이사회결의일(결정일)', '', dashedDate(ctx.date)],
  ]);
  m.section(1, '13. 기타 투자판단에 참고할 사항');
  m.p(
    `가. 상기 신주 발행가액은 예정발행가액이며, 확정발행가액은 구주주 청약일 전 제3거래일에 결정됩니다. 1주당 신주배정주식수는 ${ratio(count / ctx.sharesOutstanding)}주입니다.`,
  );
  for (let i = rng.int(3, 6); i > 0; i--) m.p(paragraph(ctx, RISKS));
  m.section(1, '【자금조달의 세부 사용 계획】');
  m.table(
    [
      ['구분', '사용 예정 시기', '금액(원)'],
      ...ctx.products.map((product) => [`${product} 생산설비 증설`, `${ctx.year}년 ${rng.int(1, 4)}분기`, won(total / 6)]),
    ],
    { header: true },
  );
  return m.toString();
}

function buyback(ctx: Context): string {
  const { rng } = ctx;
  const count = Math.round(ctx.sharesOutstanding * (0.005 + rng.next() * 0.03));
  const price = rng.int(20, 900) * 50;
  const m = new Markup();
  m.section(1, '자기주식 취득 결정');
  m.table([
    ['1. 취득예정주식(주)', { text: '보통주식', tag: 'TU' }, won(count)],
    ['2. 취득예정금액(원)', { text: '보통주식', tag: 'TU' }, won(count * price)],
    ['3. 취득예상기간', '시작일', dashedDate(addDays(ctx.date, 1))],
    ['', '종료일', dashedDate(addDays(ctx.date, 91))],
    ['4. 취득목적', '', '주가안정 및 주주가치 제고'],
    ['5. 취득방법', '', '유가증권시장을 통한 장내 직접 취득'],
    ['6. 위탁투자중개업자', '', rng.pick(BROKERS)],
    ['7. 취득결정일', '', dashedDate(ctx.date)],
  ]);
  m.section(1, '8. 기타 투자판단에 참고할 사항');
  m.p(`가. 상기 취득예정금액은 이사회 결의일 전일 종가 ${won(price)}원을 기준으로 산정한 금액으로, 실제 취득금액은 변동될 수 있습니다.`);
  m.p('나. 1일 매수 주문수량 한도는 취득예정주식의 10%와 이사회 결의일 전 30일간 일평균 거래량의 25% 중 큰 수량 이내입니다.');
  for (let i = rng.int(2, 4); i > 0; i--) m.p(paragraph(ctx, BUSINESS, 2));
  return m.toString();
}

function convertibleBond(ctx: Context): string {
  const { rng } = ctx;
  const face = rng.int(50, 2_000) * 100_000_000;
  const price = rng.int(20, 900) * 50;
  const maturity = addDays(ctx.date, 365 * rng.int(3, 5));
  const m = new Markup();
  m.section(1, '전환사채권 발행결정');
  m.table([
    ['1. 사채의 종류', '회차', String(rng.int(1, 30))],
    ['', '종류', '무기명식 이권부 무보증 사모 전환사채'],
    ['2. 사채의 권면(전자등록)총액(원)', '', won(face)],
    ['3. 자금조달의 목적', '운영자금(원)', won(face * 0.6)],
    ['', '타법인 증권 취득자금(원)', won(face * 0.4)],
    ['4. 사채의 이율', '표면이자율(%)', ratio(rng.int(0, 4))],
    ['', '만기이자율(%)', ratio(rng.int(2, 7))],
    ['5. 사채만기일', '', dashedDate(maturity)],
    ['6. 전환에 관한 사항', '전환가액(원/주)', won(price)],
    ['', '전환에 따라 발행할 주식수', won(face / price)],
    ['', '주식총수 대비 비율(%)', ratio((100 * face) / price / ctx.sharesOutstanding)],
    ['', '전환청구기간 시작일', dashedDate(addDays(ctx.date, 365))],
    ['', '전환청구기간 종료일', dashedDate(addDays(maturity, -30))],
    ['7. 납입일', '', dashedDate(addDays(ctx.date, 14))],
    ['8. 이사회결의일(결정일)', '', dashedDate(ctx.date)],
  ]);
  m.section(1, '9. 전환가액 조정에 관한 사항');
  m.p('가. 본 사채 발행 후 시가를 하회하는 발행가액으로 유상증자, 주식배당, 준비금의 자본전입 등을 하는 경우 전환가액을 조정합니다.');
  m.p(
    `나. 본 사채 발행 후 매 3개월마다 시가가 전환가액보다 낮은 경우 그 시가로 전환가액을 조정하되, 발행 당시 전환가액의 70% 미만으로 조정할 수 없습니다.`,
  );
  m.section(1, '10. 기타 투자판단에 참고할 사항');
  for (let i = rng.int(3, 7); i > 0; i--) m.p(paragraph(ctx, RISKS));
  m.table(
    [
      ['발행 대상자명', '회사 또는 최대주주와의 관계', '발행 권면총액(원)'],
      ...Array.from({ length: rng.int(1, 5) }, () => [`${rng.pick(INSTITUTIONS)} 일반사모투자신탁`, '-', won(face / 5)]),
    ],
    { header: true },
  );
  return m.toString();
}

function majorHolderChange(ctx: Context): string {
  const { rng } = ctx;
  const m = new Markup();
  m.section(1, '최대주주등소유주식변동신고서');
  m.table(
    [
      ['성명', '관계', '변동전(주)', '변동후(주)', '변동일', '변동사유'],
      ...Array.from({ length: rng.int(1, 3) }, (_, i) => {
        const before = rng.int(10_000, 5_000_000);
        return [
          personName(rng),
          i === 0 ? '최대주주본인' : '친인척',
          won(before),
          won(before + rng.int(-9_000, 9_000)),
          dashedDate(addDays(ctx.date, -rng.int(1, 5))),
          rng.pick(['장내매수', '장내매도', '증여', '상속']),
        ];
      }),
    ],
    { header: true },
  );
  m.p('※ 최대주주 변경을 수반하지 않는 변동입니다.');
  return m.toString();
}

function dividend(ctx: Context): string {
  const { rng } = ctx;
  const perShare = rng.int(1, 60) * 50;
  const record = `${ctx.year - 1}1231`;
  const m = new Markup();
  m.section(1, '현금ㆍ현물배당 결정');
  m.table([
    ['1. 배당구분', '', rng.pick(['결산배당', '분기배당', '중간배당'])],
    ['2. 배당종류', '', '현금배당'],
    ['3. 1주당 배당금(원)', { text: '보통주식', tag: 'TU' }, won(perShare)],
    ['4. 시가배당율(%)', { text: '보통주식', tag: 'TU' }, ratio(0.3 + rng.next() * 6)],
    ['5. 배당금총액(원)', '', won(perShare * ctx.sharesOutstanding)],
    ['6. 배당기준일', '', dashedDate(record)],
    ['7. 배당금지급 예정일자', '', dashedDate(addDays(ctx.date, 30))],
    ['8. 주주총회 예정일자', '', dashedDate(addDays(ctx.date, 21))],
    ['9. 이사회결의일(결정일)', '', dashedDate(ctx.date)],
  ]);
  m.p('※ 시가배당율은 배당기준일 전전거래일부터 과거 1주일간의 종가 평균 대비 1주당 배당금의 비율입니다.');
  return m.toString();
}

function investorMeeting(ctx: Context): string {
  const { rng } = ctx;
  const m = new Markup();
  m.section(1, '기업설명회(IR) 개최');
  m.table([
    ['1. 개최일시', `${dashedDate(addDays(ctx.date, rng.int(3, 14)))} ${rng.int(9, 16)}:00`],
    ['2. 개최장소', rng.pick(['컨퍼런스콜', '여의도 한국거래소 국제회의장', '홍콩 및 싱가포르 현지'])],
    ['3. 참가대상자', '국내외 기관투자자 및 애널리스트'],
    ['4. 개최목적', `${ctx.year - 1}년 경영실적 및 주요 사업 현황 설명`],
    ['5. 개최방법', rng.pick(['컨퍼런스콜', '오프라인 설명회', '온라인 웹캐스트 병행'])],
  ]);
  m.p('※ 설명회 자료는 개최 당일 당사 홈페이지에 게시할 예정입니다.');
  return m.toString();
}

function equityAcquisition(ctx: Context): string {
  const { rng } = ctx;
  const target = companyName(rng, false).name;
  const price = rng.int(10, 3_000) * 100_000_000;
  const m = new Markup();
  m.section(1, '타법인 주식 및 출자증권 취득결정');
  m.table([
    ['1. 발행회사', '회사명', target],
    ['', '국적', rng.chance(0.7) ? '대한민국' : rng.pick(COUNTRIES)],
    ['', '대표자', personName(rng)],
    ['', '주요사업', `${rng.pick(ctx.products)} 제조`],
    ['2. 취득내역', '취득주식수(주)', won(rng.int(10_000, 5_000_000))],
    ['', '취득금액(원)', won(price)],
    ['', '자기자본대비(%)', ratio((100 * price) / (ctx.revenue * 0.58))],
    ['3. 취득후 지분비율(%)', '', ratio(10 + rng.next() * 90)],
    ['4. 취득목적', '', '사업 다각화 및 수직계열화를 통한 경쟁력 강화'],
    ['5. 취득예정일자', '', dashedDate(addDays(ctx.date, rng.int(7, 60)))],
  ]);
  m.section(1, '【발행회사의 요약 재무상황】');
  m.table(
    [
      ['구분', '자산총계', '부채총계', '자본총계', '매출액', '당기순이익'],
      ...[1, 2, 3].map((back) => [
        `${ctx.year - back}년`,
        ...[0.3, 0.15, 0.15, 0.4, 0.02].map((share) => won((price * share * (1 - 0.1 * back)) / 1_000_000)),
      ]),
    ],
    { header: true, unit: '(단위 : 백만원)' },
  );
  m.section(1, '6. 기타 투자판단에 참고할 사항');
  for (let i = rng.int(2, 5); i > 0; i--) m.p(paragraph(ctx, BUSINESS));
  return m.toString();
}

function shareholdersMeeting(ctx: Context): string {
  const { rng } = ctx;
  const m = new Markup();
  m.section(1, '주주총회소집결의');
  m.table([
    ['1. 주주총회의 종류', rng.pick(['정기주주총회', '임시주주총회'])],
    ['2. 일시', `${dashedDate(addDays(ctx.date, rng.int(14, 30)))} 09:00`],
    ['3. 장소', `${ctx.address} 본사 대회의실`],
    ['4. 이사회결의일', dashedDate(ctx.date)],
  ]);
  m.section(1, '5. 회의목적사항');
  const agenda = [
    `제${ctx.term}기 재무제표 승인의 건`,
    '정관 일부 변경의 건',
    '이사 선임의 건',
    '이사 보수한도 승인의 건',
    '감사위원회 위원 선임의 건',
  ];
  agenda.forEach((item, i) => m.p(`제${i + 1}호 의안 : ${item}`));
  m.section(1, '【정관 변경 내용】');
  m.table(
    [
      ['변경전 내용', '변경후 내용', '변경의 목적'],
      ...Array.from({ length: rng.int(2, 5) }, () => [
        `제${rng.int(2, 40)}조(목적) 회사는 다음의 사업을 영위함을 목적으로 한다.`,
        `제${rng.int(2, 40)}조(목적) 회사는 다음의 사업을 영위함을 목적으로 한다. ${rng.pick(ctx.products)} 관련 사업 추가`,
        '사업목적 추가',
      ]),
    ],
    { header: true },
  );
  m.section(1, '【이사 후보자】');
  m.table(
    [
      ['성명', '생년월', '사외이사후보자여부', '주요경력'],
      ...Array.from({ length: rng.int(1, 4) }, () => [
        personName(rng),
        `${rng.int(1955, 1985)}.${String(rng.int(1, 12)).padStart(2, '0')}`,
        rng.chance(0.5) ? '사외이사' : '사내이사',
        `前 ${rng.pick(INSTITUTIONS)} 본부장`,
      ]),
    ],
    { header: true },
  );
  m.p(paragraph(ctx, BUSINESS, 3));
  return m.toString();
}

function merger(ctx: Context): string {
  const { rng } = ctx;
  const other = companyName(rng, true).name;
  const m = new Markup();
  m.section(1, '회사합병 결정');
  m.table([
    ['1. 합병방법', `${ctx.corpName}가 ${other}를 흡수합병`],
    ['2. 합병형태', rng.pick(['소규모합병', '일반합병', '간이합병'])],
    ['3. 합병목적', '경영 효율성 제고 및 사업 시너지 창출'],
    ['4. 합병비율', `1 : ${ratio(rng.next() * 3)}`],
    ['5. 합병기일', dashedDate(addDays(ctx.date, rng.int(60, 120)))],
    ['6. 이사회결의일', dashedDate(ctx.date)],
  ]);
  m.section(1, '7. 합병비율 산출근거');
  for (let i = rng.int(3, 6); i > 0; i--) m.p(paragraph(ctx, POLICIES));
  m.section(1, '8. 기타 투자판단에 참고할 사항');
  for (let i = rng.int(2, 4); i > 0; i--) m.p(paragraph(ctx, RISKS));
  return m.toString();
}

function auditNotice(ctx: Context): string {
  const { rng } = ctx;
  const m = new Markup();
  m.section(1, '감사보고서 제출');
  m.table([
    ['1. 감사인', rng.pick(AUDITORS)],
    ['2. 감사의견', '적정'],
    ['3. 계속기업 존속불확실성 사유 해당여부', '미해당'],
    ['4. 감사보고서 수령일자', dashedDate(addDays(ctx.date, -1))],
  ]);
  m.table(
    [
      ['구분', '당해 사업연도', '직전 사업연도'],
      ...['자산총계', '부채총계', '자본총계', '매출액', '영업이익', '당기순이익'].map((label, i) => [
        label,
        won(figure(ctx, [1, 0.42, 0.58, 1, 0.08, 0.058][i]) / 1_000_000),
        won(figure(ctx, [1, 0.42, 0.58, 1, 0.08, 0.058][i], 1) / 1_000_000),
      ]),
    ],
    { header: true, unit: '(단위 : 백만원)' },
  );
  return m.toString();
}

function genericNotice(ctx: Context): string {
  const { rng } = ctx;
  const m = new Markup();
  m.section(1, reportName(ctx.filing));
  m.table([
    ['1. 제출인', ctx.corpName],
    ['2. 제출일', koreanDate(ctx.date)],
    ['3. 관련 금액(원)', won(rng.int(1, 500) * 100_000_000)],
  ]);
  m.section(1, '4. 세부 내용');
  for (let i = rng.int(3, 6); i > 0; i--) m.p(paragraph(ctx, BUSINESS));
  m.table(
    [
      ['구분', '당기', '전기'],
      ...Array.from({ length: rng.int(4, 12) }, () => [
        rng.pick(NOTE_ROWS),
        won(figure(ctx, rng.next() * 0.05)),
        won(figure(ctx, rng.next() * 0.05, 1)),
      ]),
    ],
    { header: true, unit: '(단위 : 원)' },
  );
  m.p(paragraph(ctx, RISKS, 3));
  return m.toString();
}
