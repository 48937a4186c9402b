import { Module } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Analyzer } from './analyzer';
import { createAnalyzer } from './analyzer.factory';

/** Provides the `Analyzer` that AI_PROVIDER chooses; inject it by the abstract class. */
@Module({
  providers: [{ provide: Analyzer, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createAnalyzer(config.ai) }],
  exports: [Analyzer],
})
export class AnalyzersModule {}
