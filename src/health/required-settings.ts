import type { EnvironmentConfig } from '../config/environment';
import type { DartConfig } from '../upstream/dart/dart.config';

/** What the readiness checks of the configuration read. */
export interface RequiredSettingsConfig extends EnvironmentConfig {
  dart: Pick<DartConfig, 'apiKey'>;
}

/**
 * The upstream settings a production instance cannot do its job without. Such an
 * instance starts (so the operator can read its log and status) but is not ready, so
 * an orchestrator never sends it traffic. Local and dev run without them on purpose.
 */
export function missingRequiredSettings(config: RequiredSettingsConfig): string[] {
  if (config.appEnv !== 'production') return [];
  const missing: string[] = [];
  // Without it nothing new is ever collected: the briefing goes stale silently.
  if (config.dart.apiKey === undefined) missing.push('DART_API_KEY');
  return missing;
}
