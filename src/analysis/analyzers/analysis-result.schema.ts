import { z } from 'zod';
import { AnalyzerError } from './analyzer';

/**
 * The full analysis an investor reveals with quota, version 1. Defined once here;
 * the TypeScript type, the JSON Schema the models answer in and the checks on
 * every answer all derive from `analysisResultSchema` (the Swagger DTO in
 * `analysis-result.dto.ts` mirrors it, and a test keeps the two equal).
 *
 * Changing a field's meaning or shape means a new `schema_version`: stored rows
 * keep the version they were written with. Version 2 gave every key figure its
 * `period`; version 1 rows have key figures without one.
 */
export const ANALYSIS_SCHEMA_VERSION = 2;

export const ANALYSIS_CATEGORIES = [
  'earnings',
  'capital_raise',
  'contract',
  'governance',
  'ownership',
  'mna',
  'dividend',
  'legal',
  'periodic',
  'other',
] as const;
export type AnalysisCategory = (typeof ANALYSIS_CATEGORIES)[number];

/** What each category means to a Korean reader (shown to the models and usable by clients). */
export const ANALYSIS_CATEGORY_LABELS: Readonly<Record<AnalysisCategory, string>> = {
  earnings: '실적',
  capital_raise: '자금조달·증자',
  contract: '계약',
  governance: '지배구조',
  ownership: '지분변동',
  mna: '인수합병',
  dividend: '배당',
  legal: '소송·제재',
  periodic: '정기보고서',
  other: '기타',
};

export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

export const IMPACT_LEVELS = ['high', 'medium', 'low'] as const;
export type ImpactLevel = (typeof IMPACT_LEVELS)[number];

export const IMPACT_DIRECTIONS = ['up', 'down', 'mixed', 'unclear'] as const;
export type ImpactDirection = (typeof IMPACT_DIRECTIONS)[number];

/** Limits of the schema, shared by the checks, the model instructions and the Swagger DTO. */
export const ANALYSIS_LIMITS = {
  /** The headline becomes the one-liner, a varchar(100) column. */
  headlineMaxChars: 100,
  summaryMaxChars: 800,
  keyPoints: { min: 2, max: 6 },
  keyFigures: { min: 0, max: 8 },
  risks: { min: 0, max: 5 },
  /** Key points, risks and the impact reason. */
  itemMaxChars: 300,
  figureLabelMaxChars: 60,
  figureTextMaxChars: 60,
  unitMaxChars: 20,
  periodMaxChars: 40,
} as const;

const L = ANALYSIS_LIMITS;

/** A line of text: whitespace runs (line breaks included) become one space, ends are trimmed. */
const line = (max: number) =>
  z
    .string()
    .overwrite((value) => value.replace(/\s+/g, ' ').trim())
    .min(1)
    .max(max);

const keyFigureSchema = z.object({
  label: line(L.figureLabelMaxChars).describe(`수치의 이름 (예: 매출액, 계약금액, 신주 수). ${L.figureLabelMaxChars}자 이내`),
  value: z
    .union([z.number(), line(L.figureTextMaxChars)])
    .describe('원문의 수치. 숫자로 쓸 수 있으면 쉼표 없는 숫자(예: 45000000000), 아니면 원문 표기 그대로의 문자열'),
  unit: line(L.unitMaxChars).nullable().describe('단위 (예: 원, 억원, 백만원, 주, %, 배). 단위가 없으면 null'),
  period: line(L.periodMaxChars)
    .nullable()
    .describe(
      '수치가 속한 기간. 기간 동안의 값(매출액, 이익)은 YYYY-MM-DD~YYYY-MM-DD, 시점의 값(자산총계)은 YYYY-MM-DD. 결정의 수치(계약금액, 비율)처럼 기간이 없으면 null',
    ),
});

const impactSchema = z.object({
  level: z.enum(IMPACT_LEVELS).describe('주가·기업가치에 대한 영향의 크기'),
  direction: z.enum(IMPACT_DIRECTIONS).describe('영향의 방향: up 상승, down 하락, mixed 엇갈림, unclear 판단 어려움'),
  reason: line(L.itemMaxChars).describe(`영향을 그렇게 판단한 근거, 한두 문장. ${L.itemMaxChars}자 이내`),
});

export const analysisResultSchema = z.object({
  schema_version: z.literal(ANALYSIS_SCHEMA_VERSION).describe(`결과 형식의 버전. 항상 ${ANALYSIS_SCHEMA_VERSION}`),
  headline: line(L.headlineMaxChars).describe(
    `한 줄 요약. 회사명과 공시의 핵심(무엇을, 얼마나)을 담은 ${L.headlineMaxChars}자 이내의 한 문장`,
  ),
  summary: line(L.summaryMaxChars).describe(`공시 내용과 의미를 2~4문장으로 요약. ${L.summaryMaxChars}자 이내`),
  key_points: z
    .array(line(L.itemMaxChars))
    .min(L.keyPoints.min)
    .max(L.keyPoints.max)
    .describe(`투자자가 알아야 할 핵심 사실 ${L.keyPoints.min}~${L.keyPoints.max}개, 각 ${L.itemMaxChars}자 이내`),
  category: z
    .enum(ANALYSIS_CATEGORIES)
    .describe('공시 분류: ' + ANALYSIS_CATEGORIES.map((category) => `${category} ${ANALYSIS_CATEGORY_LABELS[category]}`).join(', ')),
  sentiment: z.enum(SENTIMENTS).describe('기존 주주 입장에서 본 공시의 성격'),
  impact: impactSchema.describe('예상되는 영향'),
  key_figures: z
    .array(keyFigureSchema)
    .min(L.keyFigures.min)
    .max(L.keyFigures.max)
    .describe(`원문에 있는 핵심 수치 최대 ${L.keyFigures.max}개, 각각 기간과 단위와 함께. 원문에 없는 수치는 넣지 않는다`),
  risks: z
    .array(line(L.itemMaxChars))
    .min(L.risks.min)
    .max(L.risks.max)
    .describe(`원문에 근거한 위험 요인 최대 ${L.risks.max}개, 각 ${L.itemMaxChars}자 이내. 없으면 빈 배열`),
});

export type AnalysisResult = z.infer<typeof analysisResultSchema>;
export type AnalysisKeyFigure = z.infer<typeof keyFigureSchema>;
export type AnalysisImpact = z.infer<typeof impactSchema>;

/** A JSON Schema object node as the model APIs take it. */
export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, unknown>;
  required: string[];
  additionalProperties: false;
  [keyword: string]: unknown;
}

/**
 * Keywords left out of the schema sent to the models. Strict structured output
 * (OpenAI) and the compatible servers accept different subsets of JSON Schema;
 * types, enums, required properties and `additionalProperties: false` are common
 * to all, lengths and counts are not. The limits still hold: the descriptions
 * state them and `parseAnalysisResult` enforces them on every answer.
 */
const MODEL_UNSUPPORTED_KEYWORDS = ['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'format'];

function toModelSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toModelSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (MODEL_UNSUPPORTED_KEYWORDS.includes(keyword)) continue;
    // `const` is not in every subset; a one-value enum says the same.
    if (keyword === 'const') out.enum = [value];
    else if (keyword === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as object).map(([name, schema]) => [name, toModelSchema(schema)]));
    } else out[keyword] = toModelSchema(value);
  }
  if (Array.isArray(out.enum) && out.enum.every((item) => Number.isInteger(item))) out.type = 'integer';
  return out;
}

/** The JSON Schema of a result, in the subset every model API accepts (every property required, no extra ones). */
export const analysisResultJsonSchema = toModelSchema(
  z.toJSONSchema(analysisResultSchema, { target: 'draft-7', io: 'output' }),
) as JsonSchemaObject;

/** Name of the schema in OpenAI's `response_format` and of Anthropic's answer tool. */
export const ANALYSIS_RESULT_SCHEMA_NAME = 'disclosure_analysis';

/**
 * Validates a model's answer (already parsed from JSON). Whitespace is normalised;
 * unknown properties are dropped. Anything outside the schema, including a
 * headline over 100 characters, is a failed attempt: it throws a `bad-answer`
 * `AnalyzerError` so the queue asks again (spending an attempt), and nothing malformed is ever stored.
 * Headlines are not cut: a cut one-liner reads as broken text to every reader of
 * the feed, and a model told the limit keeps it on the next attempt.
 */
export function parseAnalysisResult(value: unknown): AnalysisResult {
  const parsed = analysisResultSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
  throw new AnalyzerError('bad-answer', `the model answered outside the schema: ${problems}`);
}

/**
 * Reads the JSON text of a model's answer. Servers that ignore the requested
 * format sometimes wrap it in a Markdown code fence; that wrapper is removed.
 */
export function parseJsonAnswer(text: string): unknown {
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(unfenced) as unknown;
  } catch {
    throw new AnalyzerError('bad-answer', `the model answered outside the schema: not JSON (${JSON.stringify(text.slice(0, 80))}…)`);
  }
}
