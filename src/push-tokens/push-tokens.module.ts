import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PushTokensController } from './push-tokens.controller';
import { PushTokensRepository } from './push-tokens.repository';
import { PushTokenEntity } from './push-token.entity';

/** Registration of the devices' FCM tokens; sending lives in src/push. */
@Module({
  imports: [TypeOrmModule.forFeature([PushTokenEntity])],
  controllers: [PushTokensController],
  providers: [PushTokensRepository],
  exports: [PushTokensRepository],
})
export class PushTokensModule {}
