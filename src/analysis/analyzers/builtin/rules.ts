import type { AnalysisCategory, ImpactDirection, ImpactLevel, Sentiment } from '../analysis-result.schema';
import type { Figure, Segment } from './filing-text';

// The rules of the extractive analyzer, as data where they can be: which words
// make a sentence matter, which report names mean which category, how a category
// and its figures turn into sentiment and impact. All of it is deterministic.

/** Words that make a sentence worth a key point, with their weight. */
export const SENTENCE_KEYWORDS: readonly (readonly [string, number])[] = [
  ['유상증자', 3], ['무상증자', 3], ['전환사채', 3], ['신주인수권', 3], ['교환사채', 3], ['신주', 2],
  ['주주배정', 2], ['제3자배정', 2], ['일반공모', 2], ['발행가액', 2], ['자금조달', 2], ['시설자금', 2], ['운영자금', 2],
  ['공급계약', 3], ['계약금액', 3], ['계약상대', 2], ['계약기간', 2], ['매출액 대비', 2], ['해지', 2],
  ['매출액', 2], ['영업이익', 3], ['영업손실', 3], ['당기순이익', 2], ['당기순손실', 2], ['흑자전환', 3], ['적자전환', 3],
  ['배당', 2], ['시가배당률', 2], ['최대주주', 3], ['자기주식', 2], ['지분', 1], ['보유비율', 2],
  ['소송', 3], ['청구', 2], ['제재', 3], ['과징금', 3], ['횡령', 3], ['배임', 3],
  ['합병', 3], ['분할', 2], ['양수', 2], ['양도', 2], ['취득', 2], ['처분', 2],
  ['증가', 1], ['감소', 1], ['대비', 1], ['변경', 1], ['목적', 1], ['결정', 1],
];

/** Form lines that carry no news (addressee, contact, signatures, instructions). */
export const BOILERPLATE =
  /귀중|^(?:회사명|대표이사|본점\s?소재지|전화번호|홈페이지|작성\s?책임자|공시\s?책임자)\s*[:：|]|정정\s?사유|투자판단과 관련한|참고할 사항|참고사항|관련\s?공시|^※|이사회\s?결의일|참석\s?여부|감사\s?참석/;

/** Words naming the figures investors look for first, with their weight; negative ones are form details. */
export const FIGURE_KEYWORDS: readonly (readonly [string, number])[] = [
  ['계약금액', 5], ['매출액 대비', 4], ['매출액', 4], ['영업이익', 4], ['영업손실', 4], ['당기순이익', 3], ['당기순손실', 3],
  ['신주', 3], ['모집', 3], ['조달', 3], ['시설자금', 3], ['운영자금', 3], ['채무상환', 2], ['타법인', 2],
  ['발행가', 3], ['권면', 4], ['전환가액', 3], ['사채', 2],
  ['배당금', 4], ['배당', 3], ['시가배당', 3],
  ['취득예정금액', 4], ['취득금액', 4], ['양수금액', 4], ['양도금액', 4], ['합병비율', 3], ['취득', 2], ['처분', 2],
  ['소송가액', 4], ['청구금액', 4], ['과징금', 4],
  ['보유비율', 3], ['지분율', 3], ['소유주식', 2], ['보유주식', 2],
  ['자산총계', 2], ['자본총계', 1], ['부채총계', 1],
  ['증자전', 1], ['발행주식총수', 1],
  ['액면', -5], ['최근 매출액', -2], ['기준주가', -1], ['할인율', -1],
];

/** Words of a sentence that states a risk. */
export const RISK_WORDS = /위험|불확실|변동될 수|변경될 수|지연|해지|취소|철회|소송|희석|손실|적자|미확정|제재|과징금|감사의견|계속기업|우려/;

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
    reportWords: ['소송', '제재', '과징금', '횡령', '배임', '불성실공시', '상장폐지', '거래정지', '매매거래정지', '회생', '파산', '영업정지', '감사의견'],
    textWords: ['소송', '원고', '피고', '판결', '제재', '과징금', '횡령', '배임'],
  },
  {
    category: 'mna',
    reportWords: ['합병', '회사분할', '분할합병', '영업양수', '영업양도', '주식교환', '주식이전', '자산양수', '자산양도', '타법인주식및출자증권'],
    textWords: ['합병', '분할', '양수', '양도', '인수', '주식교환'],
  },
  {
    category: 'capital_raise',
    reportWords: ['유상증자', '무상증자', '감자', '전환사채', '신주인수권부사채', '교환사채', '사채권', '증권신고서', '투자설명서', '증권발행실적', '소액공모'],
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

const RULE_NOTE = ' (모델 없이 공시 유형과 수치로 정한 규칙 기반 판단입니다.)';

/**
 * Sentiment and impact by category, the way retail investors usually read each
 * kind of filing:
 * - new shares or convertible bonds: negative, down (dilution); high from 20% of the
 *   shares outstanding, medium from 5%; bonus issues positive; capital reductions negative;
 * - supply contracts: positive, up; high from 20% of recent sales, medium from 5%;
 *   a cancelled contract is negative;
 * - earnings and periodic reports: the direction of operating profit (sales when
 *   absent) in the sentences and table rows naming it;
 * - dividends positive; legal matters negative (high for delisting, trading halts,
 *   embezzlement, rehabilitation); treasury share purchases positive; changes of the
 *   largest shareholder and M&A mixed; governance and other notices neutral.
 */
export function judge(
  category: AnalysisCategory,
  reportName: string,
  text: string,
  segments: readonly Segment[],
  figures: readonly Figure[],
): Judgement {
  const name = reportName.replace(/\s/g, '');
  const has = (pattern: RegExp): boolean => pattern.test(name) || pattern.test(text);
  const result = (sentiment: Sentiment, level: ImpactLevel, direction: ImpactDirection, reason: string): Judgement => ({
    sentiment,
    level,
    direction,
    reason: reason + RULE_NOTE,
  });

  switch (category) {
    case 'capital_raise': {
      if (/무상증자/.test(name)) return result('positive', 'medium', 'up', '무상증자는 회사 가치를 바꾸지 않지만 유통 주식이 늘어 통상 긍정적으로 받아들여집니다.');
      if (/감자/.test(name)) return result('negative', 'medium', 'down', '감자 결정은 통상 주주에게 부정적인 신호로 받아들여집니다.');
      const ratio = dilutionPercent(figures);
      const level: ImpactLevel = ratio === null ? 'medium' : ratio >= 20 ? 'high' : ratio >= 5 ? 'medium' : 'low';
      const size = ratio === null ? '' : ` 새로 발행하는 주식은 기존 발행주식의 ${ratio.toFixed(1)}%입니다(원문 수치로 계산).`;
      return result('negative', level, 'down', `신주나 주식으로 바뀔 수 있는 증권의 발행으로 기존 주주의 지분이 희석될 수 있습니다.${size}`);
    }
    case 'contract': {
      if (/해지|취소|해제/.test(name)) return result('negative', 'medium', 'down', '계약 해지는 예정된 매출이 사라진다는 뜻입니다.');
      const share = figures.find((figure) => figure.unit === '%' && figure.label.includes('매출액 대비'));
      const level: ImpactLevel = !share ? 'medium' : share.value >= 20 ? 'high' : share.value >= 5 ? 'medium' : 'low';
      const size = share ? ` 계약금액은 최근 매출액의 ${share.value}%입니다.` : '';
      return result('positive', level, 'up', `새 공급계약은 앞으로의 매출로 이어질 수 있습니다.${size}`);
    }
    case 'earnings':
    case 'periodic': {
      const trend = earningsTrend(segments);
      const strong = has(/흑자전환|적자전환/);
      const level: ImpactLevel = category === 'earnings' ? (strong ? 'high' : 'medium') : 'low';
      if (trend > 0) return result('positive', level, 'up', '실적 관련 문장과 표에서 이익이나 매출이 늘어난 것으로 나타납니다.');
      if (trend < 0) return result('negative', level, 'down', '실적 관련 문장과 표에서 이익이나 매출이 줄어든 것으로 나타납니다.');
      return result('neutral', 'low', 'unclear', '원문에서 실적의 뚜렷한 증감 방향을 찾지 못했습니다.');
    }
    case 'dividend':
      return result('positive', 'low', 'up', '배당 결정은 주주에게 현금이 돌아간다는 뜻입니다.');
    case 'legal': {
      const severe = has(/상장폐지|거래정지|횡령|배임|회생|파산/);
      return result('negative', severe ? 'high' : 'medium', 'down', '소송이나 제재는 비용과 불확실성을 키웁니다.');
    }
    case 'ownership':
      if (/자기주식취득|자기주식.*취득/.test(name)) return result('positive', 'medium', 'up', '자기주식 취득은 유통 주식을 줄이고 주가를 떠받치는 요인으로 받아들여집니다.');
      if (/자기주식처분/.test(name)) return result('neutral', 'low', 'mixed', '자기주식 처분은 시장에 나오는 주식을 늘릴 수 있습니다.');
      if (/최대주주변경/.test(name)) return result('neutral', 'medium', 'mixed', '최대주주가 바뀌면 경영 방향이 달라질 수 있습니다.');
      return result('neutral', 'low', 'unclear', '주요 주주의 지분 변동을 알리는 공시입니다.');
    case 'mna':
      return result('neutral', 'medium', 'mixed', '인수·합병이나 분할은 조건에 따라 주주에게 유리할 수도 불리할 수도 있습니다.');
    case 'governance':
      return result('neutral', 'low', 'unclear', '경영진이나 주주총회에 관한 공시로 실적에 바로 영향을 주지는 않습니다.');
    default:
      return result('neutral', 'low', 'unclear', '주가에 대한 영향을 판단할 근거가 원문에 뚜렷하지 않습니다.');
  }
}

/** New shares as a percentage of the shares outstanding before the issue, when the filing gives both. */
function dilutionPercent(figures: readonly Figure[]): number | null {
  const shares = figures.filter((figure) => figure.unit === '주');
  const before = shares.find((figure) => /증자전|발행주식총수/.test(figure.label));
  const issued = shares.find((figure) => figure !== before && /신주|발행할 주식|모집/.test(figure.label));
  if (!before || !issued || before.value <= 0) return null;
  return (issued.value / before.value) * 100;
}

const UP_WORDS = /흑자전환|증가|개선|성장|상승|확대/;
const DOWN_WORDS = /적자전환|적자지속|감소|악화|하락|축소|손실/;

/**
 * +1 per sign of growth, −1 per sign of decline, in the segments about operating
 * profit (sales when none mentions it). A table row with two numbers compares the
 * first column (this period, as filings order them) with the second.
 */
function earningsTrend(segments: readonly Segment[]): number {
  const about = (metric: RegExp) => segments.filter((segment) => metric.test(segment.text));
  let relevant = about(/영업이익|영업손실/);
  if (relevant.length === 0) relevant = about(/매출액|당기순이익/);
  let trend = 0;
  for (const segment of relevant.slice(0, 10)) {
    if (segment.isTableRow) {
      const numbers = segment.cells
        .filter((cell) => /^[△-]?\d[\d,]*(\.\d+)?$/.test(cell))
        .map((cell) => (cell.startsWith('△') || cell.startsWith('-') ? -1 : 1) * Number(cell.replace(/[△,-]/g, '')));
      if (numbers.length >= 2 && numbers[0] !== numbers[1]) trend += numbers[0] > numbers[1] ? 1 : -1;
      continue;
    }
    if (UP_WORDS.test(segment.text)) trend += 1;
    if (DOWN_WORDS.test(segment.text)) trend -= 1;
  }
  return trend;
}
