import { Module } from '@nestjs/common';
import { AdminKeyGuard } from './admin-key.guard';
import { AdminController } from './admin.controller';

@Module({
  controllers: [AdminController],
  providers: [AdminKeyGuard],
  exports: [AdminKeyGuard],
})
export class AdminModule {}
