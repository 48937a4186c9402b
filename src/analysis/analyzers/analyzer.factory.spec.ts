import { Test } from '@nestjs/testing';
import { EnvReader } from '../../config/env-reader';
import { analysisConfig } from '../analysis.config';
import { ConfigModule } from '../../config/config.module';
import { Analyzer } from './analyzer';
import { createAnalyzer } from './analyzer.factory';
import { AnalyzersModule } from './analyzers.module';
import { AnthropicAnalyzer } from './anthropic.analyzer';
import { BuiltinAnalyzer } from './builtin.analyzer';
import { OpenAiAnalyzer } from './openai.analyzer';
import { SUPPLY_CONTRACT } from '../../../local/doubles/filing-documents';
import { validAnswer } from '../../../local/doubles/analysis-answers';
import { startModelServerDouble } from '../../../local/doubles/model-server-double';
import { Metrics } from '../../metrics/metrics';
import { MetricsModule } from '../../metrics/metrics.module';

/** The analysis slice for these variables, as the application reads it. */
function aiConfig(env: Record<string, string>) {
  const read = new EnvReader(env);
  const ai = analysisConfig(read);
  read.assertValid();
  return ai;
}

class CapturedLog {
  readonly lines: string[] = [];
  log(message: unknown): void {
    this.lines.push(`log: ${String(message)}`);
  }
  warn(message: unknown): void {
    this.lines.push(`warn: ${String(message)}`);
  }
  debug(message: unknown): void {
    this.lines.push(`debug: ${String(message)}`);
  }
}

describe('createAnalyzer', () => {
  it('runs the builtin analyzer when no provider is configured, and says that no model is used', () => {
    const log = new CapturedLog();
    const analyzer = createAnalyzer(aiConfig({}), log);
    expect(analyzer).toBeInstanceOf(BuiltinAnalyzer);
    expect(log.lines).toEqual([expect.stringMatching(/^debug: analyzer: builtin \(extractive-v2\): no AI model is used/)]);
  });

  it('runs the OpenAI analyzer with the configured model and base URL, never logging the key', () => {
    const log = new CapturedLog();
    const ai = aiConfig({ OPENAI_API_KEY: 'sk-secret-123', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'qwen3:8b' });
    const analyzer = createAnalyzer(ai, log);
    expect(analyzer).toBeInstanceOf(OpenAiAnalyzer);
    expect(analyzer).toMatchObject({ provider: 'openai', model: 'qwen3:8b' });
    expect(log.lines).toEqual(['log: analyzer: openai, model qwen3:8b at http://127.0.0.1:11434/v1']);
  });

  it('runs the Anthropic analyzer when its key is configured', () => {
    const log = new CapturedLog();
    const analyzer = createAnalyzer(aiConfig({ ANTHROPIC_API_KEY: 'sk-ant-secret' }), log);
    expect(analyzer).toBeInstanceOf(AnthropicAnalyzer);
    expect(analyzer).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(log.lines.join('\n')).not.toContain('sk-ant-secret');
  });

  it('warns when a model provider is chosen without a key', () => {
    const log = new CapturedLog();
    createAnalyzer(aiConfig({ AI_PROVIDER: 'anthropic' }), log);
    expect(log.lines[1]).toMatch(/^warn: ANTHROPIC_API_KEY is not set/);
  });
});

describe('AnalyzersModule', () => {
  it.each([
    [{}, BuiltinAnalyzer],
    [{ AI_PROVIDER: 'openai', OPENAI_API_KEY: 'k' }, OpenAiAnalyzer],
    [{ AI_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k' }, AnthropicAnalyzer],
  ])('provides the Analyzer that the configuration %j names', async (env, kind) => {
    const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot({ ai: aiConfig(env) }), AnalyzersModule] })
      .setLogger({ log: () => undefined, warn: () => undefined, error: () => undefined })
      .compile();
    expect(moduleRef.get(Analyzer)).toBeInstanceOf(kind);
    await moduleRef.close();
  });

  it('counts the model calls of the provider in upstream_requests_total', async () => {
    const server = await startModelServerDouble();
    try {
      server.answerWith({
        status: 200,
        body: { choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(validAnswer()) }, finish_reason: 'stop' }] },
      });
      const env = { AI_PROVIDER: 'openai', OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` };
      const moduleRef = await Test.createTestingModule({
        imports: [ConfigModule.forRoot({ ai: aiConfig(env) }), MetricsModule, AnalyzersModule],
      })
        .setLogger({ log: () => undefined, warn: () => undefined, error: () => undefined })
        .compile();
      await moduleRef.get(Analyzer).analyze(SUPPLY_CONTRACT);
      const counted = await moduleRef.get(Metrics).upstreamRequests.get();
      expect(counted.values).toEqual([{ labels: { upstream: 'openai', endpoint: 'chat.completions', result: 'ok' }, value: 1 }]);
      await moduleRef.close();
    } finally {
      await server.close();
    }
  });
});
