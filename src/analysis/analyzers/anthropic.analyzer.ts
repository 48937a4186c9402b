import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { AnalysisConfig } from '../analysis.config';
import { ANALYSIS_RESULT_SCHEMA_NAME, type AnalysisResult, analysisResultJsonSchema, parseAnalysisResult } from './analysis-result.schema';
import { Analyzer, AnalyzerError, type AnalysisInput, type AnalyzerOutput } from './analyzer';
import {
  callResultOf,
  describeError,
  failureFromStatus,
  MODEL_MAX_OUTPUT_TOKENS,
  MODEL_TIMEOUT_MS,
  type ModelCallOptions,
  NO_API_KEY,
} from './model-call';
import { buildUserPrompt, SYSTEM_PROMPT } from './prompts';

/** The public API, used when ANTHROPIC_BASE_URL is unset. */
const ANTHROPIC_API_URL = 'https://api.anthropic.com';
const MESSAGES = 'messages';

/**
 * Analyzes through Anthropic's Messages API. The answer's structure comes from a
 * single tool the model is forced to call: the tool's input schema is the result
 * schema, so the tool call's input is the analysis.
 */
export class AnthropicAnalyzer extends Analyzer {
  readonly provider = 'anthropic' as const;
  readonly model: string;
  private readonly client: Anthropic;
  private readonly baseUrl: string;
  private readonly onCall: NonNullable<ModelCallOptions['onCall']>;

  constructor(config: AnalysisConfig['anthropic'], options: ModelCallOptions = {}) {
    super();
    this.model = config.model;
    this.onCall = options.onCall ?? (() => undefined);
    this.baseUrl = config.baseUrl ?? ANTHROPIC_API_URL;
    this.client = new Anthropic({
      // Explicit values keep the SDK from reading its own variables and credential files.
      baseURL: this.baseUrl,
      apiKey: config.apiKey ?? NO_API_KEY,
      timeout: options.timeoutMs ?? MODEL_TIMEOUT_MS,
      // The analysis queue retries with backoff; retries here would multiply its attempts.
      maxRetries: 0,
    });
  }

  async analyze(input: AnalysisInput): Promise<AnalyzerOutput<AnalysisResult>> {
    let message: Message;
    const started = Date.now();
    try {
      message = await this.client.messages.create({
        model: this.model,
        // No temperature: the Messages API of this SDK generation no longer takes sampling settings.
        max_tokens: MODEL_MAX_OUTPUT_TOKENS,
        system: SYSTEM_PROMPT,
        messages: [{ role: 'user', content: buildUserPrompt(input) }],
        tools: [
          {
            name: ANALYSIS_RESULT_SCHEMA_NAME,
            description: '공시 분석 결과를 기록합니다. 분석을 마치면 반드시 이 도구로 결과 전체를 한 번에 제출하세요.',
            input_schema: analysisResultJsonSchema,
          },
        ],
        tool_choice: { type: 'tool', name: ANALYSIS_RESULT_SCHEMA_NAME },
      });
    } catch (error) {
      const failure = this.failure(error, Date.now() - started);
      this.onCall(MESSAGES, callResultOf(failure));
      throw failure;
    }
    this.onCall(MESSAGES, 'ok');

    if (message.stop_reason === 'refusal') throw new AnalyzerError('bad-answer', 'the model refused');
    if (message.stop_reason === 'max_tokens') throw new AnalyzerError('bad-answer', 'the answer was cut at the output token limit');
    const call = (message.content ?? []).find((block) => block.type === 'tool_use' && block.name === ANALYSIS_RESULT_SCHEMA_NAME);
    if (!call || call.type !== 'tool_use')
      throw new AnalyzerError('bad-answer', 'the model returned no analysis (no call of the answer tool)');

    const result = parseAnalysisResult(call.input);
    const usage = message.usage;
    return {
      oneLiner: result.headline,
      result,
      provider: this.provider,
      model: message.model || this.model,
      usage: {
        // Cached prompt tokens are counted apart from input_tokens; the prompt is all three.
        promptTokens:
          typeof usage?.input_tokens === 'number'
            ? usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0)
            : null,
        completionTokens: typeof usage?.output_tokens === 'number' ? usage.output_tokens : null,
      },
    };
  }

  private failure(error: unknown, elapsedMs: number): AnalyzerError {
    // The SDK's own timeout error is lost when its abort error crosses realms (as under Jest); the clock is not.
    if (error instanceof APIConnectionTimeoutError || (error instanceof APIConnectionError && elapsedMs >= this.client.timeout)) {
      return new AnalyzerError('outage', `${this.baseUrl} did not answer within ${this.client.timeout / 1000} s`);
    }
    if (error instanceof APIConnectionError) {
      return new AnalyzerError('outage', `could not reach ${this.baseUrl}: ${describeError(error)}`);
    }
    if (error instanceof APIError && typeof error.status === 'number') {
      return failureFromStatus('the Anthropic API', error.status, error.message, error.headers);
    }
    // Thrown before any answer was read: the call, not the filing, failed.
    return new AnalyzerError('outage', `the Anthropic call failed: ${describeError(error)}`);
  }
}
