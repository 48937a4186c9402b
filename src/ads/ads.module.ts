import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QuotaModule } from '../quota/quota.module';
import { UsersModule } from '../users/users.module';
import { AdRewardCallbackService } from './ad-reward-callback.service';
import { AdRewardTransactionsRepository } from './ad-reward-transactions.repository';
import { AdSsvController } from './ad-ssv.controller';
import { AdVerifierKeys } from './ad-verifier-keys';
import { AdRewardTransactionEntity } from './ad-reward-transaction.entity';

/** Rewarded ads: the ad network's verification callback and its verifier keys. */
@Module({
  imports: [TypeOrmModule.forFeature([AdRewardTransactionEntity]), QuotaModule, UsersModule],
  controllers: [AdSsvController],
  providers: [AdRewardTransactionsRepository, AdRewardCallbackService, AdVerifierKeys],
  exports: [AdRewardTransactionsRepository],
})
export class AdsModule {}
