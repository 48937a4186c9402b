import {
  ANALYSIS_CATEGORY_LABELS,
  ANALYSIS_LIMITS as L,
  ANALYSIS_SCHEMA_VERSION,
  type AnalysisKeyFigure,
  type AnalysisResult,
  parseAnalysisResult,
} from './analysis-result.schema';
import { Analyzer, type AnalysisInput, type AnalyzerOutput } from './analyzer';
import {
  cutAtWord,
  extractFigures,
  type Figure,
  formatFigure,
  renderSegment,
  type Segment,
  splitSegments,
  toWon,
} from './builtin/filing-text';
import { BOILERPLATE, classify, FIGURE_KEYWORDS, judge, RISK_WORDS, SENTENCE_KEYWORDS } from './builtin/rules';
import { formatKoreanDate } from './prompts';

export const BUILTIN_MODEL = 'extractive-v1';

const KEY_POINTS_WANTED = 4;
const KEY_POINT_MAX_CHARS = 200;
const SENTENCE_MIN_CHARS = 8;

interface ScoredSegment {
  segment: Segment;
  score: number;
  figure?: Figure;
}

/**
 * Analyzes without a model, offline and deterministically: it keeps the sentences
 * and table rows that score highest (report keywords, figures, dates, position),
 * the figures that matter most, a category from the report name, and sentiment and
 * impact from documented rules (`builtin/rules.ts`). The summary says that no model
 * wrote it. Same input, same output.
 */
export class BuiltinAnalyzer extends Analyzer {
  readonly provider = 'builtin' as const;
  readonly model = BUILTIN_MODEL;

  analyze(input: AnalysisInput): Promise<AnalyzerOutput<AnalysisResult>> {
    // Validated like a model's answer: a bug here fails the attempt instead of storing a bad row.
    const result = parseAnalysisResult(this.build(input));
    return Promise.resolve({
      oneLiner: result.headline,
      result,
      provider: this.provider,
      model: this.model,
      usage: { promptTokens: null, completionTokens: null },
    });
  }

  private build(input: AnalysisInput): AnalysisResult {
    const title = reportTitle(input.reportName);
    // The title line repeats the report name; it is no key point.
    const titleKey = compact(input.reportName);
    const segments = splitSegments(input.text);
    const allFigures = extractFigures(segments);
    const figures = rankFigures(allFigures, segments.length);
    const category = classify(input.reportName, input.text);
    const judgement = judge(category, input.reportName, input.text, segments, figures);
    const scored = scoreSegments(segments, allFigures).filter((item) => !titleKey.includes(compact(item.segment.text)));

    const candidates = scored
      .filter((item) => !BOILERPLATE.test(item.segment.text))
      .sort((a, b) => b.score - a.score || a.segment.index - b.segment.index);
    // Points that matter; a short notice, where little scores, gets its best lines up to the minimum.
    const strong = candidates.filter((item) => item.score > 1).slice(0, KEY_POINTS_WANTED);
    const picked = (strong.length >= L.keyPoints.min ? strong : candidates.slice(0, L.keyPoints.min)).sort(
      (a, b) => a.segment.index - b.segment.index,
    );
    const keyPoints = unique(picked.map((item) => cutAtWord(renderSegment(item.segment, item.figure), KEY_POINT_MAX_CHARS)));
    // A short notice may have fewer sentences worth keeping than the schema's minimum.
    const fallbacks = [
      `${input.corpName}의 '${title}' 공시 (${formatKoreanDate(input.rceptDt)} 접수).`,
      `공시 분류: ${ANALYSIS_CATEGORY_LABELS[category]}. 원문 길이 ${input.docLength.toLocaleString('en-US')}자.`,
    ];
    for (const fallback of fallbacks) if (keyPoints.length < L.keyPoints.min) keyPoints.push(fallback);

    return {
      schema_version: ANALYSIS_SCHEMA_VERSION,
      headline: headline(input.corpName, title, figures[0]),
      summary: summary(input, title, scored, figures),
      key_points: keyPoints.slice(0, L.keyPoints.max),
      category,
      sentiment: judgement.sentiment,
      impact: { level: judgement.level, direction: judgement.direction, reason: cutAtWord(judgement.reason, L.itemMaxChars) },
      key_figures: figures.slice(0, L.keyFigures.max).map(toKeyFigure),
      risks: risks(input, category, scored),
    };
  }
}

/** "[기재정정]주요사항보고서(유상증자결정)" → "[정정] 유상증자 결정" */
export function reportTitle(reportName: string): string {
  const corrected = /정정/.test(reportName.match(/^\s*\[[^\]]*\]/)?.[0] ?? '');
  let title = reportName.replace(/^\s*(\[[^\]]*\]\s*)+/, '').trim();
  const inner = /^주요사항보고서\s*\((.+)\)$/.exec(title);
  if (inner) title = inner[1];
  title = title.replace(/(?<=[가-힣])(결정|체결)$/, ' $1');
  return corrected ? `[정정] ${title}` : title;
}

function compact(text: string): string {
  return text.replace(/[\s()[\]]/g, '');
}

/** Sentences: the weights of every keyword add up. */
function keywordSum(text: string, keywords: readonly (readonly [string, number])[]): number {
  return keywords.reduce((sum, [word, weight]) => (text.includes(word) ? sum + weight : sum), 0);
}

/** Figure names: the strongest keyword counts, lowered by the strongest negative one (액면, 최근 매출액). */
function figureWeight(label: string): number {
  let best = 0;
  let worst = 0;
  for (const [word, weight] of FIGURE_KEYWORDS) {
    if (!label.includes(word)) continue;
    best = Math.max(best, weight);
    worst = Math.min(worst, weight);
  }
  return best + worst;
}

/** Most important first: the figure's name, money over counts, then earlier in the filing. */
function rankFigures(figures: Figure[], segmentCount: number): Figure[] {
  const weight = (figure: Figure): number => {
    const named = figureWeight(figure.label);
    const unit = toWon(figure) !== null ? 2 : figure.unit === '%' ? 1.5 : 1;
    const early = segmentCount > 0 ? 1 - figure.segment / segmentCount : 0;
    return named + unit + early;
  };
  const weights = new Map(figures.map((figure) => [figure, weight(figure)]));
  const ranked = figures
    .map((figure, order) => ({ figure, order }))
    .filter(({ figure }) => (weights.get(figure) ?? 0) > 1)
    .sort((a, b) => (weights.get(b.figure) ?? 0) - (weights.get(a.figure) ?? 0) || a.order - b.order)
    .map(({ figure }) => figure);
  const kept: Figure[] = [];
  // Only the leaders can make the list; comparing every pair of a long report's figures would be quadratic.
  for (const figure of ranked.slice(0, 4 * L.keyFigures.max)) if (!kept.some((other) => sameFigure(other, figure))) kept.push(figure);
  return kept;
}

/**
 * The same amount told twice: 매출액 1조 2,345억원 in a sentence and 1,234,567 백만원
 * in the table, or a sentence restating a form field. Two fields of a form with
 * equal amounts (시설자금 and 운영자금 of 100억원 each) stay apart.
 */
function sameFigure(a: Figure, b: Figure): boolean {
  const wonA = toWon(a);
  const wonB = toWon(b);
  const close =
    wonA !== null && wonB !== null
      ? Math.abs(wonA - wonB) <= 0.01 * Math.max(Math.abs(wonA), Math.abs(wonB))
      : a.unit === b.unit && a.value === b.value;
  return close && (!a.inTable || !b.inTable || headlineLabel(a) === headlineLabel(b));
}

/** The figure's name in the headline: the investor's word for it (계약금액, 신주, 매출액) when the label has one. */
function headlineLabel(figure: Figure): string {
  const words = FIGURE_KEYWORDS.filter(([word, weight]) => weight > 0 && figure.label.includes(word)).map(([word]) => word);
  return words.sort((a, b) => b.length - a.length)[0] ?? figure.shortLabel;
}

function scoreSegments(segments: readonly Segment[], figures: readonly Figure[]): ScoredSegment[] {
  const count = segments.length;
  const figureOf = new Map<number, Figure>();
  for (const figure of figures) if (!figureOf.has(figure.segment)) figureOf.set(figure.segment, figure);
  return segments
    .filter((segment) => segment.text.length >= SENTENCE_MIN_CHARS)
    .map((segment) => {
      const figure = figureOf.get(segment.index);
      let score = Math.min(keywordSum(segment.text, SENTENCE_KEYWORDS), 8);
      if (figure) score += 2 + Math.max(0, Math.min(figureWeight(figure.label), 4)) / 2;
      if (/\d{4}[.-]\s?\d{1,2}[.-]\s?\d{1,2}|\d{4}년\s?\d{1,2}월/.test(segment.text)) score += 0.5;
      score += 1.5 * (1 - segment.index / count);
      if (segment.text.length > 300) score -= 1;
      return { segment, score, figure };
    });
}

/** Company, what was filed, and the figure that matters most when it fits. */
function headline(corpName: string, title: string, top: Figure | undefined): string {
  const base = `${corpName}, ${title}`;
  if (top) {
    const withFigure = `${base} — ${headlineLabel(top)} ${formatFigure(top)}`;
    if (withFigure.length <= L.headlineMaxChars) return withFigure;
  }
  return cutAtWord(base, L.headlineMaxChars);
}

function summary(input: AnalysisInput, title: string, scored: readonly ScoredSegment[], figures: readonly Figure[]): string {
  const sentences = [`${formatKoreanDate(input.rceptDt)}, ${input.corpName}의 '${title}' 공시입니다.`];
  const lead = scored
    .filter((item) => item.score > 2 && !BOILERPLATE.test(item.segment.text))
    .sort((a, b) => b.score - a.score || a.segment.index - b.segment.index)[0];
  if (lead) sentences.push(asSentence(cutAtWord(renderSegment(lead.segment, lead.figure), 250)));
  if (figures.length > 0) {
    const named = figures.slice(0, 3).map((figure) => `${figure.label} ${formatFigure(figure)}`);
    sentences.push(`주요 수치는 ${named.join(', ')}입니다.`);
  }
  const note = input.truncated
    ? `원문이 길어 ${input.docLength.toLocaleString('en-US')}자 중 일부만 분석했으며, AI 모델 없이 원문에서 문장과 수치를 골라 만든 자동 요약입니다.`
    : 'AI 모델 없이 원문에서 문장과 수치를 골라 만든 자동 요약입니다.';
  return cutAtWord([...sentences.slice(0, 3), note].join(' '), L.summaryMaxChars);
}

function risks(input: AnalysisInput, category: string, scored: readonly ScoredSegment[]): string[] {
  const found = scored
    .filter((item) => RISK_WORDS.test(item.segment.text) && !BOILERPLATE.test(item.segment.text))
    .sort((a, b) => b.score - a.score || a.segment.index - b.segment.index)
    .slice(0, 3)
    .map((item) => cutAtWord(renderSegment(item.segment, item.figure), KEY_POINT_MAX_CHARS));
  if (category === 'capital_raise' && /유상증자|전환사채|신주인수권|교환사채/.test(input.reportName)) {
    found.push('신주 발행이나 사채의 주식 전환으로 기존 주주의 지분 가치가 희석될 수 있습니다.');
  }
  if (input.truncated) found.push('원문 일부만 분석해 빠진 내용이 있을 수 있습니다.');
  return unique(found).slice(0, L.risks.max);
}

function toKeyFigure(figure: Figure): AnalysisKeyFigure {
  return { label: figure.label.slice(0, L.figureLabelMaxChars), value: figure.value, unit: figure.unit };
}

function asSentence(text: string): string {
  return /[.?!…]$/.test(text) ? text : `${text}.`;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
