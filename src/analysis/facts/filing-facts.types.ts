import type { MoneyUnit } from './amounts';

// What a filing states, as read from its structure (src/analysis/facts/README.md): the family of the
// report, its period, its main financial lines, an audit's opinion, an event form's decision. Every
// figure carries its period and unit; what cannot be placed is left out.

export type ReportFamily = 'audit' | 'periodic' | 'event' | 'other';

export const EVENT_KINDS = [
  'supply_contract',
  'contract_termination',
  'earnings',
  'share_issue',
  'bonds',
  'buyback',
  'treasury_disposal',
  'capital_reduction',
  'acquisition',
  'disposal',
  'merger',
  'largest_shareholder',
  'litigation',
  'dividend',
  'facility_investment',
  'investment_decision',
  'dissolution',
  'other',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** ISO dates. A balance at a moment has `from` null. */
export interface FactPeriod {
  from: string | null;
  to: string;
}

export type FinancialItem = 'revenue' | 'operating_profit' | 'net_profit' | 'total_assets';

export interface FinancialFact {
  item: FinancialItem;
  /** The line's name as filed: 매출액, 영업이익(손실), 수익(매출액), 연결총당기순이익. */
  label: string;
  /** Signed: a loss is negative, whichever way the filing wrote it. */
  value: number;
  unit: MoneyUnit;
  term: 'current' | 'prior';
  period: FactPeriod;
  consolidated: boolean;
  /** From the filer's account code (ACODE), or from a labelled table row. */
  source: 'tag' | 'table';
  /** The change on the prior term in percent as the filing states it (an earnings release's 전년동기대비증감율). */
  statedChange?: number;
}

export type AuditOpinion = '적정' | '한정' | '부적정' | '의견거절';

/** What a fact of an event form is to the decision. */
export type EventRole =
  | 'subject' // what was decided: the contract's name, the kind of shares, the target
  | 'amount' // the money involved: contract, acquisition, issue, claim, buyback, dividend total
  | 'ratio' // the amount against revenue, equity, assets or shares outstanding
  | 'counterparty'
  | 'before' // a change's old and new state: the largest shareholder before and after
  | 'after'
  | 'shares'
  | 'price' // per share: issue, conversion, dividend
  | 'yield'
  | 'method'
  | 'purpose'
  | 'start'
  | 'end'
  | 'date';

export interface EventFact {
  role: EventRole;
  /** The name the form's own row gives it, without numbering or unit: 계약금액, 매출액대비, 취득예정주식(보통주식). */
  name: string;
  value: number | string;
  unit: string | null;
}

export interface FilingFacts {
  family: ReportFamily;
  /** For events: which decision. */
  eventKind: EventKind | null;
  /** A correction ([기재정정], [정정]) of an earlier filing. */
  corrected: boolean;
  /** The period a periodic or audit report covers; an earnings release's quarter. */
  period: FactPeriod | null;
  financials: FinancialFact[];
  opinion: { value: AuditOpinion; source: 'tag' | 'text' } | null;
  auditor: string | null;
  /** The facts of an event form, most important first. */
  event: EventFact[];
}
