import { MODULE_METADATA } from '@nestjs/common/constants';
import { adRewardEndpointEnabled, QuotaHttpModule } from './quota-http.module';
import { QuotaAdRewardController, QuotaController } from './quota.controller';

describe('QuotaHttpModule', () => {
  it.each([
    ['local', true],
    ['dev', true],
    ['production', false],
  ] as const)('registers the ad-reward route in %s: %s', (appEnv, enabled) => {
    expect(adRewardEndpointEnabled({ appEnv })).toBe(enabled);
    const module = QuotaHttpModule.forRoot({ appEnv });
    expect(module.controllers).toEqual(enabled ? [QuotaController, QuotaAdRewardController] : [QuotaController]);
  });

  it('declares no routes of its own outside forRoot', () => {
    expect(Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, QuotaHttpModule)).toBeUndefined();
  });
});
