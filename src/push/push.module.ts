import { Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Clock, SystemClock } from '../common/clock';
import type { FirebaseConfig } from '../attestation/firebase.config';
import { APP_CONFIG } from '../config/config.module';
import type { EnvironmentConfig } from '../config/environment';
import { PushTokensModule } from '../push-tokens/push-tokens.module';
import { DisabledPushSender } from './disabled-push-sender';
import { FcmSendBudget } from './fcm-send-budget';
import { FcmSendBudgetEntity } from './fcm-send-budget.entity';
import { FcmSendBudgetRepository, PUSH_BUDGET_TIME } from './fcm-send-budget.repository';
import { FirebasePushSender } from './firebase-push-sender';
import { PushDeliveriesRepository } from './push-deliveries.repository';
import { PushDispatcher } from './push-dispatcher';
import { PushFanoutsRepository } from './push-fanouts.repository';
import { PushHistoryController } from './push-history.controller';
import { PushPreferencesRepository } from './push-preferences.repository';
import { PushPreferencesController } from './push-preferences.controller';
import { PushSender } from './push-sender';
import { RecordedPushMessagesController } from './recorded-push-messages.controller';
import { RecordingPushSender } from './recording-push-sender';
import { PushDeliveryEntity } from './push-delivery.entity';
import { PushFanoutEntity } from './push-fanout.entity';
import { PushPreferenceEntity } from './push-preference.entity';
import { RecordedPushMessageEntity } from './recorded-push-message.entity';

/**
 * New-filing push: the outbox worker and the sender behind it. Firebase when
 * FIREBASE_SERVICE_ACCOUNT is set; without it, recorded in a table in local and dev
 * (to be seen through the admin API) and off in production.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([PushDeliveryEntity, PushFanoutEntity, PushPreferenceEntity, RecordedPushMessageEntity, FcmSendBudgetEntity]),
    PushTokensModule,
  ],
  controllers: [RecordedPushMessagesController, PushHistoryController, PushPreferencesController],
  providers: [
    {
      provide: PushSender,
      inject: [APP_CONFIG, Clock, getDataSourceToken()],
      useFactory: (config: EnvironmentConfig & FirebaseConfig, clock: Clock, dataSource: DataSource): PushSender => {
        if (config.firebaseServiceAccount !== undefined) return new FirebasePushSender(config.firebaseServiceAccount, clock);
        return config.appEnv === 'production' ? new DisabledPushSender() : new RecordingPushSender(dataSource, clock);
      },
    },
    { provide: PUSH_BUDGET_TIME, useClass: SystemClock },
    FcmSendBudgetRepository,
    FcmSendBudget,
    PushFanoutsRepository,
    PushDeliveriesRepository,
    PushDispatcher,
    PushPreferencesRepository,
  ],
  exports: [PushDispatcher, PushDeliveriesRepository, PushFanoutsRepository],
})
export class PushModule {}
