import type { DartDocument } from '../document/dart-document';
import { isMoneyUnit } from './amounts';
import { readEarningsRelease } from './earnings-release';
import type { EventFact, EventKind, EventRole, FactPeriod, FinancialFact } from './filing-facts.types';
import { type FormField, formFields } from './form-fields';
import { cleanRowLabel } from './table-reading';

// The decision an event form states, by the names the form's own rows give its fields.

type ValueKind = 'money' | 'shares' | 'percent' | 'price' | 'date' | 'text';

interface FieldSpec {
  role: EventRole;
  /** The name a reader sees. Null: the matched row's own name (시설자금, 운영자금). */
  name: string | null;
  /** Matched against the field's path, each name cleaned (see cleanRowLabel) and joined with '>'. */
  path: RegExp;
  not?: RegExp;
  value: ValueKind;
  /** Every matching field, not only the first (the purposes of a share issue). */
  all?: boolean;
  /** A text value longer than this is an explanation, not the field's value (a split ratio's method). */
  maxChars?: number;
}

const COMMON_SHARES = /보통주/;

/** An acquisition or a disposal (of shares, a business, assets): one form, the other verb and the other party. */
function dealSpecs(noun: '취득' | '처분', verbs: string, otherParty: string): FieldSpec[] {
  return [
    {
      role: 'counterparty',
      name: '대상',
      path: new RegExp(`(발행회사|${otherParty}|상대방|회사명)`),
      not: /관계|대표|소재지|자본금|발행주식/,
      value: 'text',
    },
    { role: 'amount', name: `${noun}금액`, path: new RegExp(`(${verbs})(금액|가액)`), not: /대비|비율/, value: 'money' },
    { role: 'ratio', name: '자기자본 대비', path: /자기자본대비/, value: 'percent' },
    { role: 'ratio', name: '자산총액 대비', path: /자산총액대비/, value: 'percent' },
    { role: 'purpose', name: `${noun}목적`, path: new RegExp(`(${verbs})목적`), value: 'text' },
    { role: 'date', name: `${noun}예정일자`, path: new RegExp(`(${verbs})(예정)?일자`), value: 'date' },
  ];
}

/** What matters in each kind of form, most important first. */
const FORM_SPECS: Readonly<Partial<Record<EventKind, readonly FieldSpec[]>>> = {
  supply_contract: [
    { role: 'subject', name: '계약명', path: /체결계약명|판매.?공급계약내용|^계약명$/, value: 'text' },
    { role: 'amount', name: '계약금액', path: /계약금액/, not: /대비/, value: 'money' },
    { role: 'ratio', name: '매출액 대비', path: /매출액대비/, value: 'percent' },
    { role: 'counterparty', name: '계약상대', path: /계약상대/, not: /관계/, value: 'text' },
    { role: 'start', name: '계약 시작일', path: /계약기간>시작일/, value: 'date' },
    { role: 'end', name: '계약 종료일', path: /계약기간>종료일/, value: 'date' },
  ],
  contract_termination: [
    { role: 'subject', name: '계약명', path: /체결계약명|계약명|계약내용/, value: 'text' },
    { role: 'amount', name: '해지금액', path: /해지금액|계약금액/, not: /대비/, value: 'money' },
    { role: 'ratio', name: '매출액 대비', path: /매출액대비/, value: 'percent' },
    { role: 'counterparty', name: '계약상대', path: /계약상대/, not: /관계/, value: 'text' },
    { role: 'date', name: '해지일자', path: /해지일자/, value: 'date' },
  ],
  share_issue: [
    { role: 'shares', name: '신주(보통주)', path: /신주의종류와수>보통주/, value: 'shares' },
    { role: 'price', name: '발행가액(보통주)', path: /(신주발행가액|발행가액).*보통주/, value: 'price' },
    { role: 'amount', name: null, path: /자금조달의목적>/, value: 'money', all: true },
    { role: 'method', name: '증자방식', path: /증자방식/, value: 'text' },
    { role: 'shares', name: '증자전 발행주식총수(보통주)', path: /증자전발행주식총수.*보통주/, value: 'shares' },
    { role: 'date', name: '납입일', path: /^납입일/, value: 'date' },
  ],
  bonds: [
    { role: 'amount', name: '권면총액', path: /권면.*총액/, value: 'money' },
    { role: 'price', name: null, path: /(전환|행사|교환)가액(\(원\/주\))?$/, not: /결정|조정|방법/, value: 'price' },
    { role: 'shares', name: '발행할 주식수', path: /(전환|행사|교환).*주식수/, value: 'shares' },
    { role: 'ratio', name: '주식총수 대비', path: /주식총수대비/, value: 'percent' },
    { role: 'method', name: '발행방법', path: /사채발행방법/, value: 'text' },
    { role: 'end', name: '사채만기일', path: /사채만기일/, value: 'date' },
  ],
  buyback: [
    { role: 'shares', name: '취득예정주식(보통주)', path: /취득예정주식.*보통주/, value: 'shares' },
    { role: 'amount', name: '취득예정금액(보통주)', path: /취득예정금액.*보통주/, value: 'money' },
    { role: 'amount', name: '계약금액', path: /^계약금액/, value: 'money' },
    { role: 'method', name: '취득방법', path: /취득방법/, value: 'text' },
    { role: 'purpose', name: '취득목적', path: /취득목적|계약목적/, value: 'text' },
    { role: 'start', name: '취득 시작일', path: /(취득예상기간|계약기간)>시작일/, value: 'date' },
    { role: 'end', name: '취득 종료일', path: /(취득예상기간|계약기간)>종료일/, value: 'date' },
  ],
  treasury_disposal: [
    { role: 'shares', name: '처분예정주식(보통주)', path: /처분예정주식.*보통주/, value: 'shares' },
    { role: 'amount', name: '처분예정금액(보통주)', path: /처분예정금액.*보통주/, value: 'money' },
    { role: 'price', name: '처분가격(보통주)', path: /처분대상주식가격.*보통주/, value: 'price' },
    { role: 'purpose', name: '처분목적', path: /처분목적/, value: 'text' },
    { role: 'start', name: '처분 시작일', path: /처분예정기간>시작일/, value: 'date' },
    { role: 'end', name: '처분 종료일', path: /처분예정기간>종료일/, value: 'date' },
  ],
  capital_reduction: [
    { role: 'shares', name: '감자주식(보통주)', path: /감자주식의종류와수.*보통주/, value: 'shares' },
    { role: 'ratio', name: '감자비율(보통주)', path: /감자비율.*보통주/, value: 'percent' },
    { role: 'method', name: '감자방법', path: /감자방법/, value: 'text' },
    { role: 'purpose', name: '감자사유', path: /감자사유/, value: 'text' },
    { role: 'date', name: '감자기준일', path: /감자기준일/, value: 'date' },
  ],
  acquisition: dealSpecs('취득', '취득|양수', '양도인'),
  disposal: dealSpecs('처분', '처분|양도', '양수인'),
  merger: [
    {
      role: 'counterparty',
      name: '상대회사',
      path: /(합병상대|상대회사|분할설립회사|완전자회사).*회사명|(합병상대|상대)회사$/,
      value: 'text',
    },
    { role: 'method', name: '방법', path: /합병방법|합병형태|분할방법|교환방법/, value: 'text', maxChars: 40 },
    { role: 'ratio', name: '비율', path: /(합병|분할|교환|이전)비율/, not: /산출|근거/, value: 'text', maxChars: 40 },
    { role: 'date', name: '기일', path: /(합병|분할|교환|이전)기일/, value: 'date' },
  ],
  largest_shareholder: [
    { role: 'before', name: '변경 전 최대주주', path: /변경전.*최대주주|최대주주.*변경전/, not: /소유|지분|비율/, value: 'text' },
    { role: 'after', name: '변경 후 최대주주', path: /변경후.*최대주주|최대주주.*변경후/, not: /소유|지분|비율/, value: 'text' },
    { role: 'ratio', name: '변경 후 지분율', path: /변경후.*(소유비율|지분율|비율)/, value: 'percent' },
    { role: 'purpose', name: '변경사유', path: /변경사유/, value: 'text' },
  ],
  litigation: [
    { role: 'subject', name: '사건', path: /사건의명칭|청구내용|소송의내용/, value: 'text' },
    { role: 'counterparty', name: '원고', path: /원고|신청인|청구인/, value: 'text' },
    { role: 'amount', name: '청구금액', path: /청구금액|소송가액|청구액/, value: 'money' },
    { role: 'ratio', name: '자기자본 대비', path: /자기자본대비/, value: 'percent' },
    { role: 'date', name: '제기일', path: /(제기|신청|접수)일/, value: 'date' },
  ],
  dividend: [
    { role: 'subject', name: '배당구분', path: /배당구분/, value: 'text' },
    { role: 'price', name: '1주당 배당금(보통주)', path: /주당배당금.*보통주/, value: 'price' },
    { role: 'yield', name: '시가배당률(보통주)', path: /시가배당[율률].*보통주/, value: 'percent' },
    { role: 'amount', name: '배당금총액', path: /배당금총액/, value: 'money' },
    { role: 'date', name: '배당기준일', path: /배당기준일/, value: 'date' },
  ],
  facility_investment: [
    { role: 'subject', name: '투자구분', path: /투자구분|투자대상|투자내용/, value: 'text' },
    { role: 'amount', name: '투자금액', path: /투자금액/, not: /대비/, value: 'money' },
    { role: 'ratio', name: '자기자본 대비', path: /자기자본대비/, value: 'percent' },
    { role: 'start', name: '투자 시작일', path: /투자기간>시작일/, value: 'date' },
    { role: 'end', name: '투자 종료일', path: /투자기간>종료일/, value: 'date' },
  ],
  investment_decision: [
    { role: 'subject', name: '제목', path: /^제목$/, value: 'text' },
    { role: 'date', name: '사실발생일', path: /사실발생|결정일/, value: 'date' },
  ],
  dissolution: [
    { role: 'subject', name: '해산사유', path: /해산사유$/, value: 'text' },
    { role: 'date', name: '사유발생일', path: /사유발생일/, value: 'date' },
  ],
};

const EMPTY_VALUE = /^[-–—]?$|^해당\s*(사항)?\s*없음$/;

/**
 * The facts of an event report: for an earnings release, the period and the main lines (read like
 * statements); for a decision form, the fields its kind is about, as the form names them.
 */
export function readEventFacts(
  document: DartDocument,
  kind: EventKind,
  reportName: string,
): { facts: EventFact[]; financials: FinancialFact[]; period: FactPeriod | null } {
  if (kind === 'earnings') {
    const release = readEarningsRelease(document, reportName);
    if (release !== null) return { facts: [], ...release };
  }
  const specs = FORM_SPECS[kind];
  if (specs === undefined) return { facts: [], financials: [], period: null };
  const fields = formFields(document).map((field) => ({ field, key: field.path.map(cleanRowLabel).join('>') }));
  const facts: EventFact[] = [];
  for (const spec of specs) {
    for (const { field, key } of fields) {
      if (!spec.path.test(key) || spec.not?.test(key)) continue;
      if (spec.path.source.includes('보통주') && !COMMON_SHARES.test(key)) continue;
      const fact = factOf(spec, field);
      if (fact === null) continue;
      facts.push(fact);
      if (!spec.all) break;
    }
  }
  return { facts, financials: [], period: null };
}

function factOf(spec: FieldSpec, field: FormField): EventFact | null {
  const text = field.text.trim();
  if (EMPTY_VALUE.test(text)) return null;
  const name = spec.name ?? cleanRowLabel(field.path[field.path.length - 1]).replace(/\([^)]*\)$/, '');
  switch (spec.value) {
    case 'text':
      return spec.maxChars !== undefined && text.length > spec.maxChars ? null : { role: spec.role, name, value: text, unit: null };
    case 'date':
      return field.date === null ? null : { role: spec.role, name, value: field.date, unit: null };
    case 'money':
      return field.number === null || !isMoneyUnit(field.unit) ? null : { role: spec.role, name, value: field.number, unit: field.unit };
    case 'shares':
      return field.number === null || (field.unit !== '주' && field.unit !== null)
        ? null
        : { role: spec.role, name, value: field.number, unit: '주' };
    case 'percent':
      return field.number === null || (field.unit !== '%' && field.unit !== null)
        ? null
        : { role: spec.role, name, value: field.number, unit: '%' };
    case 'price':
      return field.number === null || !/^원(\/주)?$/.test(field.unit ?? '')
        ? null
        : { role: spec.role, name, value: field.number, unit: '원' };
  }
}
