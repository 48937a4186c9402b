import { Module } from '@nestjs/common';
import { QuotaModule } from '../quota/quota.module';
import { UsersModule } from '../users/users.module';
import { AdRewardCallbackService } from './ad-reward-callback.service';
import { AdRewardTransactions } from './ad-reward-transactions';
import { AdSsvController } from './ad-ssv.controller';
import { AdVerifierKeys } from './ad-verifier-keys';

/** Rewarded ads: the ad network's verification callback and its verifier keys. */
@Module({
  imports: [QuotaModule, UsersModule],
  controllers: [AdSsvController],
  providers: [AdRewardTransactions, AdRewardCallbackService, AdVerifierKeys],
  exports: [AdRewardTransactions],
})
export class AdsModule {}
