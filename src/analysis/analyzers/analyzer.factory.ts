import { Logger, type LoggerService } from '@nestjs/common';
import type { AnalysisConfig } from '../analysis.config';
import { Analyzer } from './analyzer';
import { AnthropicAnalyzer } from './anthropic.analyzer';
import { BuiltinAnalyzer } from './builtin.analyzer';
import type { ModelCallOptions } from './model-call';
import { OpenAiAnalyzer } from './openai.analyzer';

/** The analyzer AI_PROVIDER names, announced in one log line (never with its key). */
export function createAnalyzer(
  ai: AnalysisConfig,
  logger: Pick<LoggerService, 'log' | 'warn' | 'debug'> = new Logger('Analyzer'),
  options: Pick<ModelCallOptions, 'onCall'> = {},
): Analyzer {
  switch (ai.provider) {
    case 'openai':
      logger.log(`analyzer: openai, model ${ai.openai.model} at ${ai.openai.baseUrl}`);
      if (!ai.openai.apiKey) logger.warn('OPENAI_API_KEY is not set: fine for a local compatible server, refused by api.openai.com');
      return new OpenAiAnalyzer(ai.openai, options);
    case 'anthropic':
      logger.log(`analyzer: anthropic, model ${ai.anthropic.model} at ${ai.anthropic.baseUrl ?? 'the Anthropic API'}`);
      if (!ai.anthropic.apiKey) logger.warn('ANTHROPIC_API_KEY is not set: the Anthropic API will refuse every analysis');
      return new AnthropicAnalyzer(ai.anthropic, options);
    case 'builtin': {
      const analyzer = new BuiltinAnalyzer();
      // Debug: the start summary already says so at info (src/startup-summary.ts).
      logger.debug?.(
        `analyzer: builtin (${analyzer.model}): no AI model is used; analyses are extractive summaries of the filing text ` +
          '(set OPENAI_API_KEY or ANTHROPIC_API_KEY for model analyses)',
      );
      return analyzer;
    }
  }
}
