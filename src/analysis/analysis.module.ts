import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { QuotaModule } from '../quota/quota.module';
import { DartModule } from '../upstream/dart/dart.module';
import { AnalysesRepository } from './analyses.repository';
import { AnalysisSchedulerService } from './analysis-scheduler.service';
import { AnalysisController } from './analysis.controller';
import { AnalysisService } from './analysis.service';
import { AnalyzersModule } from './analyzers/analyzers.module';
import { RevealedDisclosuresRepository } from './revealed-disclosures.repository';
import { SchedulerAdminController } from './scheduler-admin.controller';
import { SchedulerSettingsRepository } from './scheduler-settings.repository';
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
  providers: [AnalysesRepository, AnalysisSchedulerService, AnalysisService, RevealedDisclosuresRepository, SchedulerSettingsRepository],
  exports: [AnalysisSchedulerService, AnalysesRepository],
})
export class AnalysisModule {}
