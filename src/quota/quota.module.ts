import { Module } from '@nestjs/common';
import { QuotaStore } from './quota-store';
import { QuotaService } from './quota.service';

@Module({
  providers: [QuotaStore, QuotaService],
  exports: [QuotaService],
})
export class QuotaModule {}
