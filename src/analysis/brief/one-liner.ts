import { ANALYSIS_LIMITS } from '../analyzers/analysis-result.schema';
import type { EventFact, EventRole, FilingFacts, FinancialFact, FinancialItem } from '../facts/filing-facts.types';
import { formatChange, formatEventFact, formatFinancial, itemName } from './fact-format';

/** The one-liner is the result's headline: a varchar(100), shown on a phone's lock screen. */
const ONE_LINER_MAX_CHARS = ANALYSIS_LIMITS.headlineMaxChars;

/** "[기재정정]주요사항보고서(유상증자결정)" → "[정정] 유상증자 결정" */
export function reportTitle(reportName: string): string {
  const corrected = /정정/.test(reportName.match(/^\s*\[[^\]]*\]/)?.[0] ?? '');
  let title = reportName.replace(/^\s*(\[[^\]]*\]\s*)+/, '').trim();
  const inner = /^주요사항보고서\s*\((.+)\)$/.exec(title);
  if (inner) title = inner[1];
  title = title.replace(/(?<=[가-힣])(결정|체결)$/, ' $1');
  return corrected ? `[정정] ${title}` : title;
}

/**
 * The line a reader sees first and the push carries: the company, what it filed, and the fact the
 * filing exists for, each number one of the extracted facts with its unit and sign:
 * - an audit report: its opinion ("감사의견 의견거절"), then revenue and operating result;
 * - a periodic report or an earnings release: revenue and operating result, with their change on the prior period;
 * - an event: the decision's size (amount, shares, ratio to revenue or equity) and counterparty.
 * Parts are added while the line stays within 100 characters; with no fact, the company and the report.
 */
export function oneLiner(facts: FilingFacts, corpName: string, reportName: string): string {
  const title = reportTitle(reportName);
  switch (facts.family) {
    case 'audit':
      return compose(`${corpName} ${title}`, [facts.opinion === null ? null : `감사의견 ${facts.opinion.value}`, ...financialParts(facts)]);
    case 'periodic':
      return compose(`${corpName} ${title}`, financialParts(facts));
    case 'event':
      if (facts.eventKind === 'earnings' && facts.financials.length > 0)
        return compose(`${corpName} ${earningsTitle(facts)}`, financialParts(facts));
      return compose(`${corpName}, ${title}`, eventParts(facts.event));
    default:
      return compose(`${corpName}, ${title}`, []);
  }
}

/** Revenue and the operating result (the net result when no operating line was read), with their change. */
function financialParts(facts: FilingFacts): Array<string | null> {
  const current = (item: FinancialItem): FinancialFact | undefined =>
    facts.financials.find((fact) => fact.item === item && fact.term === 'current');
  const prior = (item: FinancialItem): FinancialFact | undefined =>
    facts.financials.find((fact) => fact.item === item && fact.term === 'prior');
  const items: FinancialItem[] = current('operating_profit') !== undefined ? ['revenue', 'operating_profit'] : ['revenue', 'net_profit'];
  return items.map((item) => {
    const fact = current(item);
    if (fact === undefined) return null;
    const change = formatChange(fact, prior(item));
    return `${itemName(fact)} ${formatFinancial(fact)}${change === null ? '' : `(${change})`}`;
  });
}

/** "2026년 2분기 잠정실적", from the quarter the release covers; "[정정] …" for a correction. */
function earningsTitle(facts: FilingFacts): string {
  const to = facts.period?.to;
  const [year, month] = (to ?? '').split('-').map(Number);
  const title = to === undefined ? '잠정실적' : `${year}년 ${Math.ceil(month / 3)}분기 잠정실적`;
  return facts.corrected ? `[정정] ${title}` : title;
}

/** What an event's line says, in order: what, how much, against what, with whom. */
const EVENT_PARTS: ReadonlyArray<readonly [EventRole, (fact: EventFact) => string]> = [
  ['subject', (fact) => formatEventFact(fact, 24)],
  ['before', (fact) => `${formatEventFact(fact, 20)} →`],
  ['after', (fact) => formatEventFact(fact, 20)],
  ['amount', (fact) => `${fact.name} ${formatEventFact(fact)}`],
  ['shares', (fact) => `${fact.name} ${formatEventFact(fact)}`],
  ['price', (fact) => `${fact.name} ${formatEventFact(fact)}`],
  ['ratio', (fact) => `${fact.name} ${formatEventFact(fact)}`],
  ['yield', (fact) => `${fact.name} ${formatEventFact(fact)}`],
  ['counterparty', (fact) => `${fact.name} ${formatEventFact(fact, 24)}`],
  ['method', (fact) => formatEventFact(fact, 16)],
];

function eventParts(facts: readonly EventFact[]): Array<string | null> {
  const parts: Array<string | null> = [];
  for (const [role, render] of EVENT_PARTS) {
    const ofRole = facts.filter((candidate) => candidate.role === role);
    // Several amounts are parts of one whole (a share issue's purposes): naming one would pass it off as the whole.
    if (role === 'amount' && ofRole.length > 1) continue;
    // Otherwise the first of each role: the form's main field (보통주 before 기타주).
    if (ofRole.length > 0) parts.push(render(ofRole[0]));
  }
  // "A → B" reads as one part.
  const arrow = parts.findIndex((part) => part?.endsWith('→'));
  if (arrow !== -1 && arrow + 1 < parts.length) parts.splice(arrow, 2, `${parts[arrow]} ${parts[arrow + 1]}`);
  return parts;
}

/** The head, then ": " and the parts that fit, comma-separated; a head too long on its own is cut at a word and marked. */
function compose(head: string, parts: ReadonlyArray<string | null>): string {
  if (head.length > ONE_LINER_MAX_CHARS) return cutAtWord(head, ONE_LINER_MAX_CHARS);
  let line = head;
  let separator = ': ';
  for (const part of parts) {
    if (part === null || part === '') continue;
    if (line.length + separator.length + part.length > ONE_LINER_MAX_CHARS) continue;
    line += separator + part;
    separator = ', ';
  }
  return line;
}

/** Cuts at a word boundary and marks the cut. */
export function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const slice = text.slice(0, maxChars - 1);
  const space = slice.lastIndexOf(' ');
  return `${(space > maxChars / 2 ? slice.slice(0, space) : slice).replace(/[\s,.:·]+$/, '')}…`;
}
