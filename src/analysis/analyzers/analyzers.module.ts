import { Module } from '@nestjs/common';
import type { AnalysisConfig } from '../analysis.config';
import { APP_CONFIG } from '../../config/config.module';
import { Metrics } from '../../metrics/metrics';
import { Analyzer } from './analyzer';
import { createAnalyzer } from './analyzer.factory';

/** Provides the `Analyzer` that AI_PROVIDER chooses; inject it by the abstract class. */
@Module({
  providers: [
    {
      provide: Analyzer,
      // Optional: modules tested without the metrics still get their analyzer.
      inject: [APP_CONFIG, { token: Metrics, optional: true }],
      useFactory: (config: { ai: AnalysisConfig }, metrics?: Metrics) => {
        const { provider } = config.ai;
        // The builtin analyzer calls no one.
        const onCall = provider === 'builtin' ? undefined : metrics?.upstreamListener(provider);
        return createAnalyzer(config.ai, undefined, { onCall });
      },
    },
  ],
  exports: [Analyzer],
})
export class AnalyzersModule {}
