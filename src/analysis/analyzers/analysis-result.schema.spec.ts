import { Controller, Get } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ApiOkResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AnalysisResultDto } from './analysis-result.dto';
import {
  ANALYSIS_CATEGORIES,
  analysisResultJsonSchema,
  analysisResultSchema,
  parseAnalysisResult,
  parseJsonAnswer,
} from './analysis-result.schema';
import { AnalyzerError } from './analyzer';
import { validAnswer } from '../../../local/doubles/analysis-answers';

type Node = Record<string, unknown>;

/** Every object schema in a JSON Schema, with its path. */
function objectNodes(node: unknown, path = '$'): { path: string; node: Node }[] {
  if (node === null || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap((item, i) => objectNodes(item, `${path}[${i}]`));
  const record = node as Node;
  const own = record.type === 'object' ? [{ path, node: record }] : [];
  return [...own, ...Object.entries(record).flatMap(([key, value]) => objectNodes(value, `${path}.${key}`))];
}

function failureOf(action: () => unknown): AnalyzerError {
  try {
    action();
  } catch (error) {
    if (error instanceof AnalyzerError) return error;
    throw error;
  }
  throw new Error('expected an AnalyzerError');
}

describe('the analysis result schema', () => {
  describe('as JSON Schema for the models', () => {
    const objects = objectNodes(analysisResultJsonSchema);

    it('has the top-level fields, version 2 as the only allowed version', () => {
      expect(Object.keys(analysisResultJsonSchema.properties)).toEqual([
        'schema_version',
        'headline',
        'summary',
        'key_points',
        'category',
        'sentiment',
        'impact',
        'key_figures',
        'risks',
      ]);
      expect(analysisResultJsonSchema.properties.schema_version).toMatchObject({ type: 'integer', enum: [2] });
      expect(analysisResultJsonSchema.properties.category).toMatchObject({ type: 'string', enum: [...ANALYSIS_CATEGORIES] });
    });

    it('closes every object (additionalProperties false) and requires every property (strict mode)', () => {
      // The result, impact and key figure objects.
      expect(objects.map(({ path }) => path)).toEqual(['$', '$.properties.impact', '$.properties.key_figures.items']);
      for (const { path, node } of objects) {
        expect({ path, additionalProperties: node.additionalProperties }).toEqual({ path, additionalProperties: false });
        expect({ path, required: node.required }).toEqual({ path, required: Object.keys(node.properties as Node) });
      }
    });

    it('keeps to the subset every model API accepts: no lengths, counts, const or $schema', () => {
      const text = JSON.stringify(analysisResultJsonSchema);
      for (const keyword of ['minLength', 'maxLength', 'minItems', 'maxItems', 'const', '$schema', 'pattern']) {
        expect(text).not.toContain(`"${keyword}"`);
      }
      // The limits are told in words instead.
      expect(analysisResultJsonSchema.properties.headline).toMatchObject({ description: expect.stringContaining('100자') });
    });

    it('lets a key figure be a number or text, and its unit and period null', () => {
      const figure = (analysisResultJsonSchema.properties.key_figures as Node).items as Node;
      const properties = figure.properties as Node;
      expect(Object.keys(properties)).toEqual(['label', 'value', 'unit', 'period']);
      expect(properties.value).toEqual({ anyOf: [{ type: 'number' }, { type: 'string' }], description: expect.any(String) });
      expect(properties.unit).toMatchObject({ anyOf: [{ type: 'string' }, { type: 'null' }] });
      expect(properties.period).toMatchObject({
        anyOf: [{ type: 'string' }, { type: 'null' }],
        description: expect.stringContaining('YYYY-MM-DD'),
      });
    });
  });

  describe('parseAnalysisResult', () => {
    it('returns a valid answer, whitespace normalised and unknown properties dropped', () => {
      const answer = { ...validAnswer(), headline: '  에이비씨케미칼,\n 520억원  공급계약 ', confidence: 0.9 };
      const result = parseAnalysisResult(answer);
      expect(result.headline).toBe('에이비씨케미칼, 520억원 공급계약');
      expect(result).not.toHaveProperty('confidence');
      expect(result.key_figures[2]).toEqual({ label: '계약기간', value: '2025-03-14 ~ 2026-12-31', unit: null, period: null });
    });

    it('accepts a headline of exactly 100 characters and refuses 101 (it is never cut)', () => {
      expect(parseAnalysisResult({ ...validAnswer(), headline: '가'.repeat(100) }).headline).toHaveLength(100);
      const error = failureOf(() => parseAnalysisResult({ ...validAnswer(), headline: '가'.repeat(101) }));
      expect(error.failure).toBe('bad-answer');
      expect(error.message).toMatch(/^the model answered outside the schema: headline: /);
    });

    it.each([
      ['an unknown category', { category: 'weather' }, /category/],
      ['an unknown sentiment', { sentiment: 'bullish' }, /sentiment/],
      ['an unknown impact direction', { impact: { level: 'high', direction: 'sideways', reason: '이유' } }, /impact\.direction/],
      ['one key point', { key_points: ['하나뿐'] }, /key_points/],
      ['seven key points', { key_points: ['1', '2', '3', '4', '5', '6', '7'] }, /key_points/],
      [
        'nine key figures',
        { key_figures: Array.from({ length: 9 }, () => ({ label: '수', value: 1, unit: null, period: null })) },
        /key_figures/,
      ],
      ['a key figure without its period (version 1)', { key_figures: [{ label: '수', value: 1, unit: null }] }, /key_figures\.0\.period/],
      ['six risks', { risks: ['1', '2', '3', '4', '5', '6'] }, /risks/],
      ['an empty summary', { summary: '   ' }, /summary/],
      ['version 1', { schema_version: 1 }, /schema_version/],
      [
        'a figure value of the wrong type',
        { key_figures: [{ label: '수', value: true, unit: '원', period: null }] },
        /key_figures\.0\.value/,
      ],
    ])('refuses %s as a bad answer', (_name, change, field) => {
      const error = failureOf(() => parseAnalysisResult({ ...validAnswer(), ...change }));
      expect(error.failure).toBe('bad-answer');
      expect(error.message).toMatch(/^the model answered outside the schema: /);
      expect(error.message).toMatch(field);
    });

    it('refuses an answer with a missing field', () => {
      const { risks: _risks, ...withoutRisks } = validAnswer();
      expect(failureOf(() => parseAnalysisResult(withoutRisks)).message).toMatch(/risks/);
      expect(failureOf(() => parseAnalysisResult(null)).failure).toBe('bad-answer');
    });
  });

  describe('parseJsonAnswer', () => {
    it('reads JSON, also inside a Markdown fence', () => {
      expect(parseJsonAnswer('{"a":1}')).toEqual({ a: 1 });
      expect(parseJsonAnswer('```json\n{"a":1}\n```')).toEqual({ a: 1 });
    });

    it('fails on text that is not JSON as a bad answer', () => {
      const error = failureOf(() => parseJsonAnswer('분석 결과는 다음과 같습니다'));
      expect(error.failure).toBe('bad-answer');
      expect(error.message).toMatch(/not JSON/);
    });
  });

  describe('AnalysisResultDto', () => {
    @Controller('probe')
    class ProbeController {
      @Get()
      @ApiOkResponse({ type: AnalysisResultDto })
      get(): AnalysisResultDto {
        return validAnswer();
      }
    }

    it('shows the same structure in the OpenAPI document as the schema', async () => {
      const moduleRef = await Test.createTestingModule({ controllers: [ProbeController] }).compile();
      const app = moduleRef.createNestApplication({ logger: false });
      const document = SwaggerModule.createDocument(app, new DocumentBuilder().build());
      await app.close();
      const schemas = document.components?.schemas as Record<string, Node>;

      const result = schemas.AnalysisResultDto;
      expect(Object.keys(result.properties as Node).sort()).toEqual(Object.keys(analysisResultSchema.shape).sort());
      expect([...(result.required as string[])].sort()).toEqual([...analysisResultJsonSchema.required].sort());
      expect(JSON.stringify((result.properties as Node).category)).toContain('"$ref":"#/components/schemas/AnalysisCategory"');
      expect(schemas.AnalysisCategory).toMatchObject({ enum: [...ANALYSIS_CATEGORIES] });
      expect((result.properties as Node).impact).toEqual({ $ref: '#/components/schemas/AnalysisImpactDto' });
      expect((result.properties as Node).key_figures).toMatchObject({
        type: 'array',
        items: { $ref: '#/components/schemas/AnalysisKeyFigureDto' },
      });

      const jsonImpact = analysisResultJsonSchema.properties.impact as Node;
      expect(Object.keys(schemas.AnalysisImpactDto.properties as Node)).toEqual(Object.keys(jsonImpact.properties as Node));
      const jsonFigure = (analysisResultJsonSchema.properties.key_figures as Node).items as Node;
      expect(Object.keys(schemas.AnalysisKeyFigureDto.properties as Node)).toEqual(Object.keys(jsonFigure.properties as Node));
      expect((schemas.AnalysisKeyFigureDto.properties as Node).value).toMatchObject({ oneOf: [{ type: 'number' }, { type: 'string' }] });
    });
  });
});
