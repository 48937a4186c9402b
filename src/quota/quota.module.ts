import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QuotaUsageRepository } from './quota-usage.repository';
import { QuotaService } from './quota.service';
import { QuotaUsageEntity } from './quota-usage.entity';

@Module({
  imports: [TypeOrmModule.forFeature([QuotaUsageEntity])],
  providers: [QuotaUsageRepository, QuotaService],
  exports: [QuotaService],
})
export class QuotaModule {}
