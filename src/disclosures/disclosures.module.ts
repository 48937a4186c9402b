import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DartModule } from '../upstream/dart/dart.module';
import { AdminDisclosuresController } from './admin-disclosures.controller';
import { BackfillService } from './backfill.service';
import { DisclosureIngestService } from './disclosure-ingest.service';
import { DisclosureMonitorService } from './disclosure-monitor.service';
import { DisclosuresRepository } from './disclosures.repository';
import { DisclosureEntity } from './disclosure.entity';
import { DisclosuresController } from './disclosures.controller';
import { DisclosuresService } from './disclosures.service';

/**
 * Filings. The features above join the ingest's transaction through `@NewFilingsStep()`
 * (new-filings-step.ts), found by the DiscoveryService: this module imports none of them.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DisclosureEntity]), DiscoveryModule, DartModule],
  controllers: [DisclosuresController, AdminDisclosuresController],
  providers: [DisclosuresRepository, DisclosuresService, DisclosureIngestService, DisclosureMonitorService, BackfillService],
  exports: [DisclosuresRepository, DisclosureIngestService, DisclosureMonitorService],
})
export class DisclosuresModule {}
