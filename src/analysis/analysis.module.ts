import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { QuotaModule } from '../quota/quota.module';
import { DartModule } from '../upstream/dart/dart.module';
import { AnalysisQueue } from './analysis-queue';
import { AnalysisSchedulerService } from './analysis-scheduler.service';
import { AnalysisController } from './analysis.controller';
import { AnalysisService } from './analysis.service';
import { AnalyzersModule } from './analyzers/analyzers.module';
import { RevealedDisclosures } from './revealed-disclosures';
import { SchedulerAdminController } from './scheduler-admin.controller';
import { SchedulerSettings } from './scheduler-settings';
import { AnalysisSchedulerSettingEntity } from './analysis-scheduler-setting.entity';
import { AnalysisEntity } from './analysis.entity';
import { RevealedDisclosureEntity } from './revealed-disclosure.entity';

@Module({
  imports: [
    TypeOrmModule.forFeature([AnalysisSchedulerSettingEntity, AnalysisEntity, RevealedDisclosureEntity]),
    AuthModule,
    QuotaModule,
    DartModule,
    AnalyzersModule,
  ],
  controllers: [AnalysisController, SchedulerAdminController],
  providers: [AnalysisQueue, AnalysisSchedulerService, AnalysisService, RevealedDisclosures, SchedulerSettings],
  exports: [AnalysisSchedulerService, AnalysisQueue],
})
export class AnalysisModule {}
