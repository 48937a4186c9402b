import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { AnalysisConfig } from '../analysis.config';
import {
  ANALYSIS_RESULT_SCHEMA_NAME,
  type AnalysisResult,
  analysisResultJsonSchema,
  parseAnalysisResult,
  parseJsonAnswer,
} from './analysis-result.schema';
import { Analyzer, AnalyzerError, type AnalysisInput, type AnalyzerOutput } from './analyzer';
import {
  callResultOf,
  describeError,
  failureFromStatus,
  MODEL_MAX_OUTPUT_TOKENS,
  MODEL_TEMPERATURE,
  MODEL_TIMEOUT_MS,
  type ModelCallOptions,
  NO_API_KEY,
} from './model-call';
import { buildUserPrompt, SYSTEM_PROMPT } from './prompts';

const CHAT_COMPLETIONS = 'chat.completions';

/**
 * Analyzes through the Chat Completions API of OpenAI or of any compatible server
 * (vLLM, Ollama, LiteLLM…) at OPENAI_BASE_URL, with JSON-schema structured output.
 */
export class OpenAiAnalyzer extends Analyzer {
  readonly provider = 'openai' as const;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly onCall: NonNullable<ModelCallOptions['onCall']>;

  constructor(
    private readonly config: AnalysisConfig['openai'],
    options: ModelCallOptions = {},
  ) {
    super();
    this.model = config.model;
    this.onCall = options.onCall ?? (() => undefined);
    this.client = new OpenAI({
      baseURL: config.baseUrl,
      apiKey: config.apiKey ?? NO_API_KEY,
      // Configuration comes from AnalysisConfig only, never from the SDK's own variables.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: options.timeoutMs ?? MODEL_TIMEOUT_MS,
      // The analysis queue retries with backoff; retries here would multiply its attempts.
      maxRetries: 0,
    });
  }

  async analyze(input: AnalysisInput): Promise<AnalyzerOutput<AnalysisResult>> {
    let completion: ChatCompletion;
    const started = Date.now();
    try {
      completion = await this.client.chat.completions.create({
        model: this.model,
        temperature: MODEL_TEMPERATURE,
        max_completion_tokens: MODEL_MAX_OUTPUT_TOKENS,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: buildUserPrompt(input) },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: { name: ANALYSIS_RESULT_SCHEMA_NAME, strict: true, schema: analysisResultJsonSchema },
        },
      });
    } catch (error) {
      const failure = this.failure(error, Date.now() - started);
      this.onCall(CHAT_COMPLETIONS, callResultOf(failure));
      throw failure;
    }
    this.onCall(CHAT_COMPLETIONS, 'ok');

    const choice = completion.choices?.[0];
    if (!choice) throw new AnalyzerError('bad-answer', 'the model returned no answer');
    if (choice.message.refusal) throw new AnalyzerError('bad-answer', `the model refused: ${choice.message.refusal}`);
    if (choice.finish_reason === 'length') throw new AnalyzerError('bad-answer', 'the answer was cut at the output token limit');
    if (choice.finish_reason === 'content_filter') throw new AnalyzerError('bad-answer', 'the answer was withheld by the content filter');
    const content = choice.message.content;
    if (!content || content.trim() === '') throw new AnalyzerError('bad-answer', 'the model returned an empty answer');

    const result = parseAnalysisResult(parseJsonAnswer(content));
    return {
      oneLiner: result.headline,
      result,
      provider: this.provider,
      // The server names the snapshot that answered (e.g. gpt-4.1-mini-2025-04-14).
      model: completion.model || this.model,
      usage: {
        promptTokens: completion.usage?.prompt_tokens ?? null,
        completionTokens: completion.usage?.completion_tokens ?? null,
      },
    };
  }

  private failure(error: unknown, elapsedMs: number): AnalyzerError {
    // The SDK's own timeout error is lost when its abort error crosses realms (as under Jest); the clock is not.
    if (error instanceof APIConnectionTimeoutError || (error instanceof APIConnectionError && elapsedMs >= this.client.timeout)) {
      return new AnalyzerError('outage', `${this.config.baseUrl} did not answer within ${this.client.timeout / 1000} s`);
    }
    if (error instanceof APIConnectionError) {
      return new AnalyzerError('outage', `could not reach ${this.config.baseUrl}: ${describeError(error)}`);
    }
    if (error instanceof APIError && typeof error.status === 'number') {
      return failureFromStatus('the OpenAI-compatible API', error.status, error.message, error.headers);
    }
    // Thrown before any answer was read: the call, not the filing, failed.
    return new AnalyzerError('outage', `the OpenAI call failed: ${describeError(error)}`);
  }
}
