import { ApiProperty } from '@nestjs/swagger';
import {
  ANALYSIS_CATEGORIES,
  ANALYSIS_CATEGORY_LABELS,
  ANALYSIS_LIMITS as L,
  ANALYSIS_SCHEMA_VERSION,
  type AnalysisCategory,
  type AnalysisImpact,
  type AnalysisKeyFigure,
  type AnalysisResult,
  IMPACT_DIRECTIONS,
  IMPACT_LEVELS,
  type ImpactDirection,
  type ImpactLevel,
  type Sentiment,
  SENTIMENTS,
} from './analysis-result.schema';

// Swagger mirrors of `analysisResultSchema`, for the OpenAPI document only; the
// schema is what validates. `implements` makes the compiler hold the two together.

export class AnalysisKeyFigureDto implements AnalysisKeyFigure {
  @ApiProperty({ example: '계약금액', maxLength: L.figureLabelMaxChars })
  label: string;

  @ApiProperty({
    oneOf: [{ type: 'number' }, { type: 'string', maxLength: L.figureTextMaxChars }],
    example: 52_000_000_000,
    description: 'A number when the filing gives one, otherwise its wording',
  })
  value: number | string;

  @ApiProperty({ type: String, nullable: true, example: '원', maxLength: L.unitMaxChars, description: 'null when the figure has no unit' })
  unit: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    // Results stored with schema_version 1 have none.
    required: false,
    example: '2025-01-01~2025-12-31',
    maxLength: L.periodMaxChars,
    description:
      "The period the figure belongs to: YYYY-MM-DD~YYYY-MM-DD for revenue and profit, YYYY-MM-DD for a balance such as total assets; null for a decision's figures (a contract amount, a ratio). Absent in results of schema_version 1.",
  })
  period: string | null;
}

export class AnalysisImpactDto implements AnalysisImpact {
  @ApiProperty({
    enum: IMPACT_LEVELS,
    enumName: 'ImpactLevel',
    description: "How much the filing may move the share price or the company's value",
  })
  level: ImpactLevel;

  @ApiProperty({
    enum: IMPACT_DIRECTIONS,
    enumName: 'ImpactDirection',
    description: 'Which way: up, down, mixed, or unclear (hard to judge)',
  })
  direction: ImpactDirection;

  @ApiProperty({ maxLength: L.itemMaxChars, example: '최근 매출액의 35%에 이르는 대형 계약입니다.' })
  reason: string;
}

export class AnalysisResultDto implements AnalysisResult {
  @ApiProperty({
    enum: [1, ANALYSIS_SCHEMA_VERSION],
    type: 'integer',
    description: `Version of this structure: ${ANALYSIS_SCHEMA_VERSION} for new analyses; results stored with 1 (before key figures had a period) are served as they were written`,
  })
  schema_version: typeof ANALYSIS_SCHEMA_VERSION;

  @ApiProperty({
    maxLength: L.headlineMaxChars,
    description: 'The one-liner',
    example: '가나다전자, 520억원 규모 반도체 장비 공급계약 체결',
  })
  headline: string;

  @ApiProperty({
    maxLength: L.summaryMaxChars,
    description: 'Two to four sentences',
    example: '가나다전자가 해외 반도체 제조사와 520억원 규모의 장비 공급계약을 맺었습니다. 계약 기간은 2027년 6월까지입니다.',
  })
  summary: string;

  @ApiProperty({
    type: [String],
    minItems: L.keyPoints.min,
    maxItems: L.keyPoints.max,
    example: ['계약금액 520억원, 최근 매출액 대비 35%', '계약 기간 2026년 11월 ~ 2027년 6월'],
  })
  key_points: string[];

  @ApiProperty({
    enum: ANALYSIS_CATEGORIES,
    enumName: 'AnalysisCategory',
    description: ANALYSIS_CATEGORIES.map((category) => `${category}: ${ANALYSIS_CATEGORY_LABELS[category]}`).join(', '),
  })
  category: AnalysisCategory;

  @ApiProperty({ enum: SENTIMENTS, enumName: 'Sentiment', description: 'For existing shareholders' })
  sentiment: Sentiment;

  @ApiProperty({ type: AnalysisImpactDto })
  impact: AnalysisImpactDto;

  @ApiProperty({ type: [AnalysisKeyFigureDto], maxItems: L.keyFigures.max })
  key_figures: AnalysisKeyFigureDto[];

  @ApiProperty({ type: [String], maxItems: L.risks.max, example: ['납품 일정이 지연되면 매출 인식이 늦어질 수 있습니다.'] })
  risks: string[];
}
