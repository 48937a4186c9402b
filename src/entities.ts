import { AdRewardTransactionEntity } from './ads/ad-reward-transaction.entity';
import { AnalysisSchedulerSettingEntity } from './analysis/analysis-scheduler-setting.entity';
import { AnalysisEntity } from './analysis/analysis.entity';
import { RevealedDisclosureEntity } from './analysis/revealed-disclosure.entity';
import { CompanyEntity } from './companies/company.entity';
import { DisclosureEntity } from './disclosures/disclosure.entity';
import { FleetInstanceEntity } from './fleet/fleet-instance.entity';
import { JobStateEntity } from './jobs/job-state.entity';
import { JobRunEntity } from './jobs/runs/job-run.entity';
import { PushTokenEntity } from './push-tokens/push-token.entity';
import { FcmSendBudgetEntity } from './push/fcm-send-budget.entity';
import { PushDeliveryEntity } from './push/push-delivery.entity';
import { PushFanoutEntity } from './push/push-fanout.entity';
import { PushPreferenceEntity } from './push/push-preference.entity';
import { RecordedPushMessageEntity } from './push/recorded-push-message.entity';
import { QuotaUsageEntity } from './quota/quota-usage.entity';
import { RateLimitBucketEntity } from './rate-limit/rate-limit-bucket.entity';
import { CorpCodeEntity } from './stocks/corp-code.entity';
import { StockEntity } from './stocks/stock.entity';
import { StoreNotificationEntity, StorePurchaseEntity } from './subscriptions/store-purchase.entity';
import { DartBudgetDayEntity, DartRequestStartEntity } from './upstream/dart/dart-budget.entities';
import { UserIdentityEntity } from './users/user-identity.entity';
import { UserEntity } from './users/user.entity';
import { WatchStockEntity } from './watchlist/watch-stock.entity';

/**
 * Every TypeORM entity of the service, for the data sources made without the application's
 * modules: the migration CLI (ormconfig.ts) and tests that open their own pool. The server's
 * data source has those its feature modules register (`TypeOrmModule.forFeature`, loaded by
 * `autoLoadEntities`); test/e2e/entity-schema.e2e-spec.ts proves the two are the same and agree
 * with the migrations.
 */
export const ENTITIES = [
  FleetInstanceEntity,
  AnalysisSchedulerSettingEntity,
  UserEntity,
  UserIdentityEntity,
  CorpCodeEntity,
  StockEntity,
  DisclosureEntity,
  AnalysisEntity,
  CompanyEntity,
  WatchStockEntity,
  PushTokenEntity,
  PushFanoutEntity,
  PushPreferenceEntity,
  PushDeliveryEntity,
  RecordedPushMessageEntity,
  FcmSendBudgetEntity,
  StorePurchaseEntity,
  StoreNotificationEntity,
  QuotaUsageEntity,
  RevealedDisclosureEntity,
  AdRewardTransactionEntity,
  RateLimitBucketEntity,
  JobRunEntity,
  JobStateEntity,
  DartRequestStartEntity,
  DartBudgetDayEntity,
];
