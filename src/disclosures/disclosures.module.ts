import { Module } from '@nestjs/common';
import { AnalysisModule } from '../analysis/analysis.module';
import { JobRunsModule } from '../job-runs/job-runs.module';
import { PushModule } from '../push/push.module';
import { DartModule } from '../upstream/dart/dart.module';
import { AdminDisclosuresController } from './admin-disclosures.controller';
import { BackfillService } from './backfill.service';
import { DisclosureIngestService } from './disclosure-ingest.service';
import { DisclosureMonitorService } from './disclosure-monitor.service';
import { DisclosureStore } from './disclosure-store';
import { DisclosuresController } from './disclosures.controller';
import { DisclosuresService } from './disclosures.service';

@Module({
  imports: [DartModule, AnalysisModule, PushModule, JobRunsModule],
  controllers: [DisclosuresController, AdminDisclosuresController],
  providers: [DisclosureStore, DisclosuresService, DisclosureIngestService, DisclosureMonitorService, BackfillService],
  exports: [DisclosureStore, DisclosureIngestService, DisclosureMonitorService],
})
export class DisclosuresModule {}
