import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PushTokensController } from './push-tokens.controller';
import { PushTokens } from './push-tokens';
import { PushTokenEntity } from './push-token.entity';

/** Registration of the devices' FCM tokens; sending lives in src/push. */
@Module({
  imports: [TypeOrmModule.forFeature([PushTokenEntity])],
  controllers: [PushTokensController],
  providers: [PushTokens],
  exports: [PushTokens],
})
export class PushTokensModule {}
