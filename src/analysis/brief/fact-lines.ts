import type { AnalysisKeyFigure } from '../analyzers/analysis-result.schema';
import { ANALYSIS_LIMITS } from '../analyzers/analysis-result.schema';
import type { FilingFacts, FinancialFact, FinancialItem } from '../facts/filing-facts.types';
import { formatPeriod } from '../facts/periods';
import { exactValue, formatChange, formatEventFact, formatFinancial, itemName } from './fact-format';

// The extracted facts as a result's key figures (each with its period and unit) and as lines a
// model or a reader gets first.

const ITEM_ORDER: readonly FinancialItem[] = ['revenue', 'operating_profit', 'net_profit', 'total_assets'];

/**
 * The facts as key figures, most important first: an audit's opinion, this period's main lines,
 * then the prior period's; an event's numbers in the order of its form. Financial figures carry the
 * period they belong to (a range for revenue and profit, a date for assets) and the unit the filing
 * states; a decision's figures belong to the decision and carry no period.
 */
export function factKeyFigures(facts: FilingFacts): AnalysisKeyFigure[] {
  const figures: AnalysisKeyFigure[] = [];
  if (facts.opinion !== null) {
    figures.push({
      label: '감사의견',
      value: facts.opinion.value,
      unit: null,
      period: facts.period === null ? null : formatPeriod(facts.period),
    });
  }
  for (const term of ['current', 'prior'] as const) {
    for (const item of ITEM_ORDER) {
      const fact = facts.financials.find((candidate) => candidate.item === item && candidate.term === term);
      if (fact !== undefined) figures.push({ label: fact.label, value: fact.value, unit: fact.unit, period: formatPeriod(fact.period) });
    }
  }
  for (const fact of facts.event) {
    if (typeof fact.value === 'number') figures.push({ label: fact.name, value: fact.value, unit: fact.unit, period: null });
  }
  return figures.slice(0, ANALYSIS_LIMITS.keyFigures.max);
}

/**
 * The facts in Korean, one line each, exact numbers with their unit and period beside the reader's
 * rounding: what a model is told first and what the built-in analysis lists as key points.
 */
export function factLines(facts: FilingFacts): string[] {
  const lines: string[] = [];
  if (facts.period !== null && facts.family !== 'event') lines.push(`보고 기간: ${formatPeriod(facts.period)}`);
  if (facts.opinion !== null) lines.push(`감사의견: ${facts.opinion.value}${facts.auditor === null ? '' : ` (감사인: ${facts.auditor})`}`);
  else if (facts.auditor !== null) lines.push(`감사인: ${facts.auditor}`);
  for (const item of ITEM_ORDER) {
    const current = facts.financials.find((fact) => fact.item === item && fact.term === 'current');
    if (current === undefined) continue;
    const prior = facts.financials.find((fact) => fact.item === item && fact.term === 'prior');
    lines.push(financialLine(current, prior));
  }
  for (const fact of facts.event) {
    const shown = formatEventFact(fact, 120);
    const exact = typeof fact.value === 'number' ? exactValue(fact.value, fact.unit) : null;
    lines.push(`${fact.name}: ${shown}${exact !== null && exact !== shown ? ` (${exact})` : ''}`);
  }
  return lines;
}

/** "영업손실: 30억원 (-3,041,861,373원, 2022-01-01~2022-12-31), 전기 영업이익 10억원 (2021-01-01~2021-12-31), 적자전환" */
function financialLine(current: FinancialFact, prior: FinancialFact | undefined): string {
  const basis = current.consolidated ? '연결, ' : '';
  const head = `${itemName(current)}: ${formatFinancial(current)} (${basis}${exactValue(current.value, current.unit)}, ${formatPeriod(current.period)})`;
  if (prior === undefined) return head;
  const change = formatChange(current, prior);
  return `${head}, 전기 ${itemName(prior)} ${formatFinancial(prior)} (${formatPeriod(prior.period)})${change === null ? '' : `, ${change}`}`;
}
