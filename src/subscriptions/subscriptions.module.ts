import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG } from '../config/config.module';
import { Metrics } from '../metrics/metrics';
import { AppStoreNotificationsService } from './app-store-notifications.service';
import { AppStoreClient } from './stores/app-store.client';
import { createPlayAuth, GOOGLE_PLAY_AUTH, GooglePlayClient } from './stores/google-play.client';
import { OperatorTierController } from './operator-tier.controller';
import { OperatorTierService } from './operator-tier.service';
import { PlayNotificationsService } from './play-notifications.service';
import { StoreNotificationsController } from './store-notifications.controller';
import { PubSubPushAuth } from './stores/pubsub-push-auth';
import type { SubscriptionsConfig } from './subscriptions.config';
import { SubscriptionsController } from './subscriptions.controller';
import { StoreNotificationsRepository } from './store-notifications.repository';
import { StorePurchasesRepository } from './store-purchases.repository';
import { SubscriptionsService } from './subscriptions.service';
import { TierTransitions } from './tier-transitions';
import { UsersModule } from '../users/users.module';
import { StoreNotificationEntity, StorePurchaseEntity } from './store-purchase.entity';

/** Store purchases and the tier transitions (the downgrade cleanup lives with the watchlist). */
@Module({
  imports: [TypeOrmModule.forFeature([StoreNotificationEntity, StorePurchaseEntity]), UsersModule],
  controllers: [SubscriptionsController, StoreNotificationsController, OperatorTierController],
  providers: [
    TierTransitions,
    OperatorTierService,
    StorePurchasesRepository,
    StoreNotificationsRepository,
    SubscriptionsService,
    PlayNotificationsService,
    AppStoreNotificationsService,
    {
      provide: PubSubPushAuth,
      inject: [APP_CONFIG],
      useFactory: (config: { subscriptions: SubscriptionsConfig }) => new PubSubPushAuth(config.subscriptions.pubsub),
    },
    { provide: GOOGLE_PLAY_AUTH, inject: [APP_CONFIG], useFactory: createPlayAuth },
    {
      provide: GooglePlayClient,
      inject: [APP_CONFIG, GOOGLE_PLAY_AUTH, Metrics],
      useFactory: (config: { subscriptions: SubscriptionsConfig }, auth: ReturnType<typeof createPlayAuth>, metrics: Metrics) =>
        new GooglePlayClient(config, auth, metrics.upstreamListener('google_play')),
    },
    {
      provide: AppStoreClient,
      inject: [APP_CONFIG, Metrics],
      useFactory: (config: { subscriptions: SubscriptionsConfig }, metrics: Metrics) =>
        new AppStoreClient(config.subscriptions.apple, metrics.upstreamListener('app_store')),
    },
  ],
  exports: [TierTransitions, StoreNotificationsRepository],
})
export class SubscriptionsModule {}
