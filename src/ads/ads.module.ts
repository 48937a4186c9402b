import { Module } from '@nestjs/common';
import { QuotaModule } from '../quota/quota.module';
import { AdRewardCallbackService } from './ad-reward-callback.service';
import { AdSsvController } from './ad-ssv.controller';
import { AdVerifierKeys } from './ad-verifier-keys';

/** Rewarded ads: the ad network's verification callback and its verifier keys. */
@Module({
  imports: [QuotaModule],
  controllers: [AdSsvController],
  providers: [AdRewardCallbackService, AdVerifierKeys],
})
export class AdsModule {}
