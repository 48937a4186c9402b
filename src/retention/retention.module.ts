import { Module } from '@nestjs/common';
import { AdsModule } from '../ads/ads.module';
import { PushModule } from '../push/push.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { RetentionService } from './retention.service';

/** The daily job that trims the records kept for a limited time, through each table's owner. */
@Module({
  imports: [PushModule, SubscriptionsModule, AdsModule],
  providers: [RetentionService],
})
export class RetentionModule {}
