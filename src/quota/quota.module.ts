import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QuotaStore } from './quota-store';
import { QuotaService } from './quota.service';
import { QuotaUsageEntity } from './quota-usage.entity';

@Module({
  imports: [TypeOrmModule.forFeature([QuotaUsageEntity])],
  providers: [QuotaStore, QuotaService],
  exports: [QuotaService],
})
export class QuotaModule {}
