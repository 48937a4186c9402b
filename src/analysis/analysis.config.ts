import { DAY_MS, type EnvReader } from '../config/env-reader';

export const AI_PROVIDERS = ['openai', 'anthropic', 'builtin'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

/** The filing analysis: which AI provider, and how the queue claims and retries. */
export interface AnalysisConfig {
  provider: AiProvider;
  concurrency: number;
  /** Attempts per filing before it is UNAVAILABLE; retries back off exponentially from `retryBaseMs`. */
  maxAttempts: number;
  retryBaseMs: number;
  /** How long a claimed analysis stays with its worker before another may take it over. */
  leaseMs: number;
  openai: { baseUrl: string; apiKey?: string; model: string };
  anthropic: { baseUrl?: string; apiKey?: string; model: string };
}

export function analysisConfig(read: EnvReader): AnalysisConfig {
  const openaiKey = read.optionalString('OPENAI_API_KEY');
  const anthropicKey = read.optionalString('ANTHROPIC_API_KEY');
  // The provider whose key is set; neither: the built-in summary.
  const defaultProvider: AiProvider = openaiKey ? 'openai' : anthropicKey ? 'anthropic' : 'builtin';
  return {
    provider: read.oneOf('AI_PROVIDER', AI_PROVIDERS, defaultProvider),
    concurrency: read.integer('ANALYSIS_CONCURRENCY', 2, { min: 1, max: 64 }),
    maxAttempts: read.integer('ANALYSIS_MAX_ATTEMPTS', 5, { min: 1, max: 20 }),
    retryBaseMs: read.integer('ANALYSIS_RETRY_BASE_MS', 30_000, { min: 1, max: DAY_MS }),
    leaseMs: read.integer('ANALYSIS_LEASE_MS', 10 * 60_000, { min: 1000, max: DAY_MS }),
    openai: {
      baseUrl: read.url('OPENAI_BASE_URL', 'https://api.openai.com/v1'),
      apiKey: openaiKey,
      model: read.string('OPENAI_MODEL', 'gpt-4.1-mini'),
    },
    anthropic: {
      baseUrl: read.url('ANTHROPIC_BASE_URL'),
      apiKey: anthropicKey,
      model: read.string('ANTHROPIC_MODEL', 'claude-haiku-4-5'),
    },
  };
}
