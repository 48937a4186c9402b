import { Module } from '@nestjs/common';
import { DartModule } from '../upstream/dart/dart.module';
import { AdminDisclosuresController } from './admin-disclosures.controller';
import { BackfillService } from './backfill.service';
import { DisclosureIngestService } from './disclosure-ingest.service';
import { DisclosureMonitorService } from './disclosure-monitor.service';
import { DisclosuresController } from './disclosures.controller';
import { DisclosuresService } from './disclosures.service';

@Module({
  imports: [DartModule],
  controllers: [DisclosuresController, AdminDisclosuresController],
  providers: [DisclosuresService, DisclosureIngestService, DisclosureMonitorService, BackfillService],
  exports: [DisclosureIngestService, DisclosureMonitorService],
})
export class DisclosuresModule {}
