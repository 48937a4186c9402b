import type { AnalysisCategory, ImpactDirection, ImpactLevel, Sentiment } from '../analysis-result.schema';
import { formatChange } from '../../brief/fact-format';
import { toWon } from '../../facts/amounts';
import type { EventFact, EventKind, FilingFacts } from '../../facts/filing-facts';

// The rules of the extractive analyzer, as data where they can be: which words
// make a sentence matter, which report names mean which category, how a category
// and its figures turn into sentiment and impact. All of it is deterministic.

/** Words that make a sentence worth a key point, with their weight. */
export const SENTENCE_KEYWORDS: readonly (readonly [string, number])[] = [
  ['유상증자', 3],
  ['무상증자', 3],
  ['전환사채', 3],
  ['신주인수권', 3],
  ['교환사채', 3],
  ['신주', 2],
  ['주주배정', 2],
  ['제3자배정', 2],
  ['일반공모', 2],
  ['발행가액', 2],
  ['자금조달', 2],
  ['시설자금', 2],
  ['운영자금', 2],
  ['공급계약', 3],
  ['계약금액', 3],
  ['계약상대', 2],
  ['계약기간', 2],
  ['매출액 대비', 2],
  ['해지', 2],
  ['매출액', 2],
  ['영업이익', 3],
  ['영업손실', 3],
  ['당기순이익', 2],
  ['당기순손실', 2],
  ['흑자전환', 3],
  ['적자전환', 3],
  ['배당', 2],
  ['시가배당률', 2],
  ['최대주주', 3],
  ['자기주식', 2],
  ['지분', 1],
  ['보유비율', 2],
  ['소송', 3],
  ['청구', 2],
  ['제재', 3],
  ['과징금', 3],
  ['횡령', 3],
  ['배임', 3],
  ['합병', 3],
  ['분할', 2],
  ['양수', 2],
  ['양도', 2],
  ['취득', 2],
  ['처분', 2],
  ['증가', 1],
  ['감소', 1],
  ['대비', 1],
  ['변경', 1],
  ['목적', 1],
  ['결정', 1],
];

/** Form lines that carry no news (addressee, contact, signatures, instructions). */
export const BOILERPLATE =
  /귀중|^(?:회사명|대표이사|본점\s?소재지|전화번호|홈페이지|작성\s?책임자|공시\s?책임자)\s*[:：|]|정정\s?사유|투자판단과 관련한|참고할 사항|참고사항|관련\s?공시|^※|이사회\s?결의일|참석\s?여부|감사\s?참석/;

/**
 * In a periodic or audit report, a risk is what the auditor or the company singles out (going-concern
 * doubt, contingent liabilities, lawsuits, sanctions), not the standard wording of responsibilities
 * and accounting policies that every such report repeats.
 */
export const REPORT_RISK_WORDS = /계속기업.{0,40}(불확실성|의문)|중요한\s*불확실성|우발부채|소송|제재|횡령|배임|과징금/;
export const REPORT_BOILERPLATE = /책임이\s*있|결론을\s*내립니다|평가합니다|감사인의\s*책임|경영진은|식별하고|인식합니다|측정합니다/;

/** Words of a sentence that states a risk. */
export const RISK_WORDS =
  /위험|불확실|변동될 수|변경될 수|지연|해지|취소|철회|소송|희석|손실|적자|미확정|제재|과징금|감사의견|계속기업|우려/;

interface CategoryRule {
  category: AnalysisCategory;
  /** Words in the report name (compared without spaces). The first rule that matches wins. */
  reportWords: string[];
  /** Words counted in the text when the report name decides nothing. */
  textWords: string[];
}

/** In priority order: a legal notice about a merger is legal first, a dividend notice is never periodic. */
export const CATEGORY_RULES: readonly CategoryRule[] = [
  {
    category: 'legal',
    reportWords: [
      '소송',
      '제재',
      '과징금',
      '횡령',
      '배임',
      '불성실공시',
      '상장폐지',
      '거래정지',
      '매매거래정지',
      '회생',
      '파산',
      '영업정지',
      '감사의견',
    ],
    textWords: ['소송', '원고', '피고', '판결', '제재', '과징금', '횡령', '배임'],
  },
  {
    category: 'mna',
    reportWords: [
      '합병',
      '회사분할',
      '분할합병',
      '영업양수',
      '영업양도',
      '주식교환',
      '주식이전',
      '자산양수',
      '자산양도',
      '타법인주식및출자증권',
    ],
    textWords: ['합병', '분할', '양수', '양도', '인수', '주식교환'],
  },
  {
    category: 'capital_raise',
    reportWords: [
      '유상증자',
      '무상증자',
      '감자',
      '전환사채',
      '신주인수권부사채',
      '교환사채',
      '사채권',
      '증권신고서',
      '투자설명서',
      '증권발행실적',
      '소액공모',
    ],
    textWords: ['유상증자', '무상증자', '전환사채', '신주인수권', '교환사채', '신주', '발행가액', '청약'],
  },
  { category: 'dividend', reportWords: ['배당'], textWords: ['배당금', '시가배당률', '배당기준일', '주당배당금'] },
  {
    category: 'ownership',
    reportWords: ['최대주주', '대량보유', '소유상황', '소유주식', '자기주식', '특정증권', '지분'],
    textWords: ['최대주주', '보유비율', '지분율', '자기주식', '소유주식'],
  },
  {
    category: 'contract',
    reportWords: ['공급계약', '판매ㆍ공급', '판매·공급', '계약체결', '계약해지', '수주'],
    textWords: ['계약금액', '계약상대', '계약기간', '수주'],
  },
  { category: 'earnings', reportWords: ['실적', '손익구조', '매출액또는손익'], textWords: ['매출액', '영업이익', '당기순이익', '잠정'] },
  { category: 'periodic', reportWords: ['사업보고서', '반기보고서', '분기보고서', '감사보고서'], textWords: [] },
  {
    category: 'governance',
    reportWords: ['주주총회', '대표이사', '임원', '이사회', '사외이사', '정관', '지배구조', '감사선임', '명의개서'],
    textWords: ['주주총회', '대표이사', '선임', '해임', '정관'],
  },
];

/** Text words must appear this often before they decide a category the report name did not. */
const TEXT_EVIDENCE_MIN = 3;

export function classify(reportName: string, text: string): AnalysisCategory {
  const name = reportName.replace(/\s/g, '');
  for (const rule of CATEGORY_RULES) {
    if (rule.reportWords.some((word) => name.includes(word))) return rule.category;
  }
  let best: { category: AnalysisCategory; count: number } = { category: 'other', count: TEXT_EVIDENCE_MIN - 1 };
  for (const rule of CATEGORY_RULES) {
    const count = rule.textWords.reduce((sum, word) => sum + countOf(text, word), 0);
    if (count > best.count) best = { category: rule.category, count };
  }
  return best.category;
}

function countOf(text: string, word: string): number {
  let count = 0;
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length)) count += 1;
  return count;
}

export interface Judgement {
  sentiment: Sentiment;
  level: ImpactLevel;
  direction: ImpactDirection;
  reason: string;
}

const RULE_NOTE = ' (모델 없이 공시 유형과 원문의 수치로 정한 규칙 기반 판단입니다.)';

/**
 * Sentiment and impact, the way retail investors usually read each kind of filing, from the facts
 * read off the filing's structure:
 * - an audit opinion other than 적정: negative, down; a disclaimer or an adverse opinion is high
 *   (a cause for delisting), a qualified one medium;
 * - earnings and periodic reports: the direction of the operating result against the prior period
 *   (revenue when no operating line was read); high for an earnings release that crosses zero;
 * - new shares or convertible bonds: negative, down (dilution); high from 20% of the shares
 *   outstanding, medium from 5%; bonus issues positive; capital reductions negative;
 * - supply contracts: positive, up; high from 20% of recent revenue, medium from 5%; a termination
 *   is negative;
 * - dividends positive; legal matters negative (high for delisting, trading halts, embezzlement,
 *   rehabilitation); treasury share purchases positive; changes of the largest shareholder and
 *   M&A mixed; governance and other notices neutral.
 */
export function judge(category: AnalysisCategory, facts: FilingFacts, reportName: string, text: string): Judgement {
  const name = reportName.replace(/\s/g, '');
  const has = (pattern: RegExp): boolean => pattern.test(name) || pattern.test(text);
  const result = (sentiment: Sentiment, level: ImpactLevel, direction: ImpactDirection, reason: string): Judgement => ({
    sentiment,
    level,
    direction,
    reason: reason + RULE_NOTE,
  });
  const event = (role: EventFact['role'], pattern?: RegExp): EventFact | undefined =>
    facts.event.find((fact) => fact.role === role && (pattern === undefined || pattern.test(fact.name)));

  if (facts.opinion !== null && facts.opinion.value !== '적정') {
    const severe = facts.opinion.value === '의견거절' || facts.opinion.value === '부적정';
    return result(
      'negative',
      severe ? 'high' : 'medium',
      'down',
      severe
        ? `감사의견이 ${facts.opinion.value}입니다. 상장회사라면 상장폐지 사유가 될 수 있는 가장 무거운 감사 결과입니다.`
        : '감사의견이 한정입니다. 재무제표 일부를 감사인이 인정하지 않았다는 뜻으로, 상장회사라면 관리종목 지정 사유가 될 수 있습니다.',
    );
  }

  switch (category) {
    case 'capital_raise': {
      if (/무상증자/.test(name))
        return result('positive', 'medium', 'up', '무상증자는 회사 가치를 바꾸지 않지만 유통 주식이 늘어 통상 긍정적으로 받아들여집니다.');
      if (/감자/.test(name)) return result('negative', 'medium', 'down', '감자 결정은 통상 주주에게 부정적인 신호로 받아들여집니다.');
      const ratio = dilutionPercent(facts.event);
      const level: ImpactLevel = ratio === null ? 'medium' : ratio >= 20 ? 'high' : ratio >= 5 ? 'medium' : 'low';
      const size = ratio === null ? '' : ` 새로 발행하는 주식은 기존 발행주식의 ${ratio.toFixed(1)}%입니다(원문 수치로 계산).`;
      return result(
        'negative',
        level,
        'down',
        `신주나 주식으로 바뀔 수 있는 증권의 발행으로 기존 주주의 지분이 희석될 수 있습니다.${size}`,
      );
    }
    case 'contract': {
      if (facts.eventKind === 'contract_termination' || /해지|취소|해제/.test(name)) {
        return result('negative', 'medium', 'down', '계약 해지는 예정된 매출이 사라진다는 뜻입니다.');
      }
      const share = event('ratio', /매출액/);
      const value = typeof share?.value === 'number' ? share.value : null;
      const level: ImpactLevel = value === null ? 'medium' : value >= 20 ? 'high' : value >= 5 ? 'medium' : 'low';
      const size = value === null ? '' : ` 계약금액은 최근 매출액의 ${value}%입니다.`;
      return result('positive', level, 'up', `새 공급계약은 앞으로의 매출로 이어질 수 있습니다.${size}`);
    }
    case 'earnings':
    case 'periodic': {
      const trend = earningsTrend(facts);
      if (trend === null)
        return result('neutral', 'low', 'unclear', '원문의 표에서 이번 기와 전기의 실적을 함께 찾지 못해 증감 방향을 판단하지 않았습니다.');
      const level: ImpactLevel = category === 'earnings' ? (trend.crossed ? 'high' : 'medium') : 'low';
      if (trend.direction > 0) return result('positive', level, 'up', trend.said);
      if (trend.direction < 0) return result('negative', level, 'down', trend.said);
      return result('neutral', 'low', 'unclear', trend.said);
    }
    case 'dividend':
      return result('positive', 'low', 'up', '배당 결정은 주주에게 현금이 돌아간다는 뜻입니다.');
    case 'legal': {
      const severe = has(/상장폐지|거래정지|횡령|배임|회생|파산/);
      return result('negative', severe ? 'high' : 'medium', 'down', '소송이나 제재는 비용과 불확실성을 키웁니다.');
    }
    case 'ownership':
      if (facts.eventKind === 'buyback' || /자기주식취득|자기주식.*취득/.test(name)) {
        return result('positive', 'medium', 'up', '자기주식 취득은 유통 주식을 줄이고 주가를 떠받치는 요인으로 받아들여집니다.');
      }
      if (facts.eventKind === 'treasury_disposal' || /자기주식처분/.test(name)) {
        return result('neutral', 'low', 'mixed', '자기주식 처분은 시장에 나오는 주식을 늘릴 수 있습니다.');
      }
      if (facts.eventKind === 'largest_shareholder' || /최대주주변경/.test(name)) {
        return result('neutral', 'medium', 'mixed', '최대주주가 바뀌면 경영 방향이 달라질 수 있습니다.');
      }
      return result('neutral', 'low', 'unclear', '주요 주주의 지분 변동을 알리는 공시입니다.');
    case 'mna':
      return result('neutral', 'medium', 'mixed', '인수·합병이나 분할은 조건에 따라 주주에게 유리할 수도 불리할 수도 있습니다.');
    case 'governance':
      return result('neutral', 'low', 'unclear', '경영진이나 주주총회에 관한 공시로 실적에 바로 영향을 주지는 않습니다.');
    default:
      return result('neutral', 'low', 'unclear', '주가에 대한 영향을 판단할 근거가 원문에 뚜렷하지 않습니다.');
  }
}

/** New shares as a percentage of the shares outstanding before the issue, when the form gives both. */
function dilutionPercent(facts: readonly EventFact[]): number | null {
  const shares = facts.filter((fact) => fact.role === 'shares' && typeof fact.value === 'number');
  const before = shares.find((fact) => /증자전|발행주식총수/.test(fact.name));
  const issued = shares.find((fact) => fact !== before);
  if (before === undefined || issued === undefined || (before.value as number) <= 0) return null;
  return ((issued.value as number) / (before.value as number)) * 100;
}

/**
 * The operating result against the prior period (revenue when no operating line has both terms):
 * which way it went, how to say it, and whether it crossed zero. Null without both terms.
 */
function earningsTrend(facts: FilingFacts): { direction: number; said: string; crossed: boolean } | null {
  for (const item of ['operating_profit', 'revenue'] as const) {
    const current = facts.financials.find((fact) => fact.item === item && fact.term === 'current');
    const prior = facts.financials.find((fact) => fact.item === item && fact.term === 'prior');
    if (current === undefined || prior === undefined) continue;
    const now = toWon(current.value, current.unit)!;
    const before = toWon(prior.value, prior.unit)!;
    const direction = Math.sign(now - before);
    const change = formatChange(current, prior);
    return { direction, said: trendSentence(item, now, before, change), crossed: Math.sign(now) !== Math.sign(before) };
  }
  return null;
}

/** "영업이익이 전기보다 늘었습니다(+12.3%).", "영업손실이 전기보다 줄었습니다(적자지속)." */
function trendSentence(item: 'operating_profit' | 'revenue', now: number, before: number, change: string | null): string {
  const note = change === null ? '' : `(${change})`;
  if (item === 'revenue')
    return now === before ? '매출액이 전기와 같습니다.' : `매출액이 전기보다 ${now > before ? '늘었' : '줄었'}습니다${note}.`;
  if (before < 0 && now > 0) return `영업실적이 흑자로 돌아섰습니다${note}.`;
  if (before > 0 && now < 0) return `영업실적이 손실로 돌아섰습니다${note}.`;
  if (now === before) return '영업실적이 전기와 같습니다.';
  if (now < 0) return `영업손실이 전기보다 ${now > before ? '줄었' : '늘었'}습니다${note}.`;
  return `영업이익이 전기보다 ${now > before ? '늘었' : '줄었'}습니다${note}.`;
}

/** Categories of the events the form readers know; the others are classified by their words. */
const EVENT_CATEGORIES: Readonly<Partial<Record<EventKind, AnalysisCategory>>> = {
  supply_contract: 'contract',
  contract_termination: 'contract',
  earnings: 'earnings',
  share_issue: 'capital_raise',
  bonds: 'capital_raise',
  capital_reduction: 'capital_raise',
  buyback: 'ownership',
  treasury_disposal: 'ownership',
  largest_shareholder: 'ownership',
  acquisition: 'mna',
  disposal: 'mna',
  merger: 'mna',
  litigation: 'legal',
  dividend: 'dividend',
};

/** The category: periodic for periodic and audit reports, the event's own for the forms read, else by the words (classify). */
export function categoryOf(facts: FilingFacts, reportName: string, text: string): AnalysisCategory {
  if (facts.family === 'periodic' || facts.family === 'audit') return 'periodic';
  const byKind = facts.eventKind === null ? undefined : EVENT_CATEGORIES[facts.eventKind];
  return byKind ?? classify(reportName, text);
}
