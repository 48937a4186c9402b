import { Module } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PushTokensModule } from '../push-tokens/push-tokens.module';
import { DisabledPushSender } from './disabled-push-sender';
import { FirebasePushSender } from './firebase-push-sender';
import { PushDeliveryQueue } from './push-delivery-queue';
import { PushDispatcher } from './push-dispatcher';
import { PushOutbox } from './push-outbox';
import { PushSender } from './push-sender';

/** New-filing push: the outbox worker and the sender behind it (Firebase, or off without credentials). */
@Module({
  imports: [PushTokensModule],
  providers: [
    {
      provide: PushSender,
      inject: [APP_CONFIG, Clock],
      useFactory: (config: AppConfig, clock: Clock): PushSender =>
        config.firebaseServiceAccount === undefined
          ? new DisabledPushSender()
          : new FirebasePushSender(config.firebaseServiceAccount, clock),
    },
    PushOutbox,
    PushDeliveryQueue,
    PushDispatcher,
  ],
  exports: [PushDispatcher, PushDeliveryQueue, PushOutbox],
})
export class PushModule {}
