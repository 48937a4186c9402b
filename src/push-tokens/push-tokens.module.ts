import { Module } from '@nestjs/common';
import { PushTokensController } from './push-tokens.controller';
import { PushTokens } from './push-tokens';

/** Registration of the devices' FCM tokens; sending lives in src/push. */
@Module({
  controllers: [PushTokensController],
  providers: [PushTokens],
  exports: [PushTokens],
})
export class PushTokensModule {}
