import { Module } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { DartClient } from './dart-client';

/** One `DartClient` for the whole process, so every job shares its per-minute budget. */
@Module({
  providers: [{ provide: DartClient, useFactory: (config: AppConfig) => new DartClient(config.dart), inject: [APP_CONFIG] }],
  exports: [DartClient],
})
export class DartModule {}
