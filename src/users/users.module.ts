import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersRepository } from './users.repository';
import { UserEntity } from './user.entity';
import { UserIdentityEntity } from './user-identity.entity';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, UserIdentityEntity])],
  providers: [UsersRepository],
  exports: [UsersRepository],
})
export class UsersModule {}
