import { changePercent, formatValue, formatWon, isMoneyUnit, toWon } from '../facts/amounts';
import type { EventFact, FinancialFact, FinancialItem } from '../facts/filing-facts.types';

// Facts in the words a Korean investor reads: amounts in 조/억원, changes in percent or in words.

/** What each main line is called when it is positive, and when it is a loss. */
const ITEM_NAMES: Readonly<Record<FinancialItem, readonly [string, string]>> = {
  revenue: ['매출액', '매출액'],
  operating_profit: ['영업이익', '영업손실'],
  net_profit: ['순이익', '순손실'],
  total_assets: ['자산총계', '자산총계'],
};

/** 영업이익 or 영업손실, as the figure's sign says. */
export function itemName(fact: Pick<FinancialFact, 'item' | 'value'>): string {
  const [gain, loss] = ITEM_NAMES[fact.item];
  return fact.value < 0 ? loss : gain;
}

/** A financial figure as a reader wants it: a loss without its minus (its name says it), money in 조/억원. */
export function formatFinancial(fact: Pick<FinancialFact, 'item' | 'value' | 'unit'>): string {
  const magnitude = fact.item === 'revenue' || fact.item === 'total_assets' ? fact.value : Math.abs(fact.value);
  return formatValue(magnitude, fact.unit);
}

/**
 * The change from the prior term: "+5.2%", "-14.3%", or the words for a result that crossed zero or
 * stayed a loss (흑자전환, 적자전환, 적자지속). Null without a prior figure.
 */
export function formatChange(current: FinancialFact, prior: FinancialFact | undefined): string | null {
  if (prior === undefined) return null;
  const now = toWon(current.value, current.unit);
  const before = toWon(prior.value, prior.unit);
  if (now === null || before === null) return null;
  if (current.item !== 'revenue' && current.item !== 'total_assets') {
    if (before < 0 && now > 0) return '흑자전환';
    if (before > 0 && now < 0) return '적자전환';
    if (before < 0 && now < 0) return '적자지속';
  }
  // The filing's own rate when it states one: it is computed from its unrounded figures.
  const change =
    current.statedChange !== undefined && now > 0 && before > 0 ? Math.round(current.statedChange * 10) / 10 : changePercent(now, before);
  if (change === null) return null;
  return `${change > 0 ? '+' : ''}${change.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })}%`;
}

/** An event's fact: amounts in 조/억원, prices per share exact, shares with separators, percentages, dates and words as written. */
export function formatEventFact(fact: EventFact, maxTextChars = 40): string {
  if (typeof fact.value === 'string') return fact.value.length > maxTextChars ? `${fact.value.slice(0, maxTextChars - 1)}…` : fact.value;
  // A price per share is read to the won: 111,180원, not 11만원.
  if (fact.role !== 'price' && fact.unit !== null && isMoneyUnit(fact.unit)) return formatWon(toWon(fact.value, fact.unit)!);
  return exactValue(fact.value, fact.unit);
}

/** The exact number as filed, for a model or a key point: "258,935,494백만원". */
export function exactValue(value: number, unit: string | null): string {
  const number = value.toLocaleString('en-US', { maximumFractionDigits: 4 });
  return unit === null ? number : `${number}${unit}`;
}
