import { factKeyFigures } from '../brief/fact-lines';
import { formatChange, formatEventFact, formatFinancial, itemName } from '../brief/fact-format';
import { cutAtWord, oneLiner, reportTitle } from '../brief/one-liner';
import type { FilingFacts } from '../facts/filing-facts';
import {
  ANALYSIS_CATEGORY_LABELS,
  ANALYSIS_LIMITS as L,
  ANALYSIS_SCHEMA_VERSION,
  type AnalysisResult,
  parseAnalysisResult,
} from './analysis-result.schema';
import { Analyzer, type AnalysisInput, type AnalyzerOutput } from './analyzer';
import { renderSegment, type Segment, splitSegments } from './builtin/filing-text';
import { BOILERPLATE, categoryOf, judge, REPORT_BOILERPLATE, REPORT_RISK_WORDS, RISK_WORDS, SENTENCE_KEYWORDS } from './builtin/rules';
import { formatKoreanDate } from './prompts';

export const BUILTIN_MODEL = 'extractive-v2';

const KEY_POINTS_WANTED = 4;
const KEY_POINT_MAX_CHARS = 200;
const SENTENCE_MIN_CHARS = 8;

interface ScoredSegment {
  segment: Segment;
  score: number;
}

/**
 * Analyzes without a model, offline and deterministically. The headline states the fact the
 * filing exists for, and every number in it, the key points and the key figures is one the facts
 * reader took from the filing's tags and tables (src/analysis/facts/), with its period and unit;
 * nothing is picked out of running text. Around the facts: the sentences of the filing that score
 * highest (report keywords, position), a category, and sentiment and impact from documented rules
 * (`builtin/rules.ts`). The summary says that no model wrote it. Same input, same output.
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
    const { facts } = input;
    const title = reportTitle(input.reportName);
    const titleKey = compact(input.reportName);
    const segments = splitSegments(input.text);
    // Statements and their notes are read by the facts reader; their rows would only repeat numbers out of context.
    const withRows = facts.financials.length === 0;
    const scored = scoreSegments(segments)
      .filter((item) => withRows || !item.segment.isTableRow)
      .filter((item) => !titleKey.includes(compact(item.segment.text)));
    const category = categoryOf(facts, input.reportName, input.text);
    const judgement = judge(category, facts, input.reportName, input.text);

    const candidates = scored
      .filter((item) => !BOILERPLATE.test(item.segment.text))
      .sort((a, b) => b.score - a.score || a.segment.index - b.segment.index);
    const factPoints = input.factLines.slice(0, KEY_POINTS_WANTED).map((line) => cutAtWord(line, KEY_POINT_MAX_CHARS));
    const wanted = Math.max(L.keyPoints.min - factPoints.length, KEY_POINTS_WANTED - factPoints.length, 0);
    // Points that matter; a short notice, where little scores, gets its best lines up to the minimum.
    const strong = candidates.filter((item) => item.score > 1).slice(0, wanted);
    const picked = (factPoints.length + strong.length >= L.keyPoints.min ? strong : candidates.slice(0, wanted)).sort(
      (a, b) => a.segment.index - b.segment.index,
    );
    const keyPoints = unique([...factPoints, ...picked.map((item) => cutAtWord(renderSegment(item.segment), KEY_POINT_MAX_CHARS))]);
    // A short notice may have fewer sentences worth keeping than the schema's minimum.
    const fallbacks = [
      `${input.corpName}의 '${title}' 공시 (${formatKoreanDate(input.rceptDt)} 접수).`,
      `공시 분류: ${ANALYSIS_CATEGORY_LABELS[category]}. 원문 길이 ${input.docLength.toLocaleString('en-US')}자.`,
    ];
    for (const fallback of fallbacks) if (keyPoints.length < L.keyPoints.min) keyPoints.push(fallback);

    return {
      schema_version: ANALYSIS_SCHEMA_VERSION,
      headline: oneLiner(facts, input.corpName, input.reportName),
      summary: summary(input, title, scored),
      key_points: keyPoints.slice(0, L.keyPoints.max),
      category,
      sentiment: judgement.sentiment,
      impact: { level: judgement.level, direction: judgement.direction, reason: cutAtWord(judgement.reason, L.itemMaxChars) },
      key_figures: factKeyFigures(facts),
      risks: risks(input, category, scored),
    };
  }
}

function compact(text: string): string {
  return text.replace(/[\s()[\]]/g, '');
}

/** Sentences: the weights of every keyword add up. */
function keywordSum(text: string, keywords: readonly (readonly [string, number])[]): number {
  return keywords.reduce((sum, [word, weight]) => (text.includes(word) ? sum + weight : sum), 0);
}

function scoreSegments(segments: readonly Segment[]): ScoredSegment[] {
  const count = segments.length;
  return segments
    .filter((segment) => segment.text.length >= SENTENCE_MIN_CHARS)
    .map((segment) => {
      let score = Math.min(keywordSum(segment.text, SENTENCE_KEYWORDS), 8);
      if (/\d{4}[.-]\s?\d{1,2}[.-]\s?\d{1,2}|\d{4}년\s?\d{1,2}월/.test(segment.text)) score += 0.5;
      score += 1.5 * (1 - segment.index / count);
      if (segment.text.length > 300) score -= 1;
      return { segment, score };
    });
}

/** The facts as one or two sentences: the opinion, the main lines with their change, or the decision. */
function factSentences(facts: FilingFacts): string[] {
  const sentences: string[] = [];
  if (facts.opinion !== null)
    sentences.push(`감사의견은 ${facts.opinion.value}${facts.auditor === null ? '' : `(감사인 ${facts.auditor})`}입니다.`);
  const lines = (['revenue', 'operating_profit', 'net_profit'] as const).flatMap((item) => {
    const current = facts.financials.find((fact) => fact.item === item && fact.term === 'current');
    if (current === undefined) return [];
    const prior = facts.financials.find((fact) => fact.item === item && fact.term === 'prior');
    const change = formatChange(current, prior);
    return [`${itemName(current)} ${formatFinancial(current)}${change === null ? '' : `(전기 대비 ${change})`}`];
  });
  if (lines.length > 0) sentences.push(`${lines.join(', ')}입니다.`);
  const decision = facts.event.filter((fact) => fact.role !== 'subject').slice(0, 4);
  if (decision.length > 0) sentences.push(`${decision.map((fact) => `${fact.name} ${formatEventFact(fact)}`).join(', ')}.`);
  return sentences;
}

function summary(input: AnalysisInput, title: string, scored: readonly ScoredSegment[]): string {
  const sentences = [`${formatKoreanDate(input.rceptDt)}, ${input.corpName}의 '${title}' 공시입니다.`, ...factSentences(input.facts)];
  const lead = scored
    .filter((item) => item.score > 2 && !item.segment.isTableRow && !BOILERPLATE.test(item.segment.text))
    .sort((a, b) => b.score - a.score || a.segment.index - b.segment.index)[0];
  if (lead) sentences.push(asSentence(cutAtWord(unbulleted(lead.segment.text), 250)));
  const note = input.truncated
    ? `원문이 길어 ${input.docLength.toLocaleString('en-US')}자 중 일부만 분석했으며, AI 모델 없이 원문의 표와 문장에서 골라 만든 자동 요약입니다.`
    : 'AI 모델 없이 원문의 표와 문장에서 골라 만든 자동 요약입니다.';
  return cutAtWord([...sentences.slice(0, 3), note].join(' '), L.summaryMaxChars);
}

function risks(input: AnalysisInput, category: string, scored: readonly ScoredSegment[]): string[] {
  const report = input.facts.family === 'audit' || input.facts.family === 'periodic';
  const isRisk = (text: string): boolean =>
    report ? REPORT_RISK_WORDS.test(text) && !REPORT_BOILERPLATE.test(text) : RISK_WORDS.test(text);
  const found = scored
    .filter((item) => !item.segment.isTableRow && isRisk(item.segment.text) && !BOILERPLATE.test(item.segment.text))
    .sort((a, b) => b.score - a.score || a.segment.index - b.segment.index)
    .slice(0, 3)
    .map((item) => cutAtWord(unbulleted(item.segment.text), KEY_POINT_MAX_CHARS));
  const opinion = input.facts.opinion?.value;
  if (opinion === '의견거절' || opinion === '부적정')
    found.unshift(`감사의견 ${opinion}: 상장회사라면 상장폐지 사유에 해당할 수 있습니다.`);
  if (opinion === '한정') found.unshift('감사의견 한정: 상장회사라면 관리종목 지정 사유에 해당할 수 있습니다.');
  if (category === 'capital_raise' && /유상증자|전환사채|신주인수권|교환사채/.test(input.reportName)) {
    found.push('신주 발행이나 사채의 주식 전환으로 기존 주주의 지분 가치가 희석될 수 있습니다.');
  }
  if (input.truncated) found.push('원문 일부만 분석해 빠진 내용이 있을 수 있습니다.');
  return unique(found).slice(0, L.risks.max);
}

/** A sentence without the list mark a form put before it ("- 상기 계약금액은…"). */
function unbulleted(text: string): string {
  return text.replace(/^[-•·○◦▶※]\s*/, '');
}

function asSentence(text: string): string {
  return /[.?!…]$/.test(text) ? text : `${text}.`;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
