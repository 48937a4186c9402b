import { type DynamicModule, Module } from '@nestjs/common';
import type { EnvironmentConfig } from '../config/environment';
import { QuotaAdRewardController, QuotaController } from './quota.controller';
import { QuotaModule } from './quota.module';

/** Whether `POST /api/v1/quota/ad-reward` exists: local and dev only, never production. */
export function adRewardEndpointEnabled(config: EnvironmentConfig): boolean {
  return config.appEnv === 'local' || config.appEnv === 'dev';
}

/**
 * The quota routes. Kept apart from QuotaModule (the service other features
 * import) because which routes exist depends on the configuration.
 */
@Module({})
export class QuotaHttpModule {
  static forRoot(config: EnvironmentConfig): DynamicModule {
    return {
      module: QuotaHttpModule,
      imports: [QuotaModule],
      controllers: adRewardEndpointEnabled(config) ? [QuotaController, QuotaAdRewardController] : [QuotaController],
    };
  }
}
