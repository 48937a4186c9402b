import { Module } from '@nestjs/common';
import { DisclosuresModule } from '../disclosures/disclosures.module';
import { JobRunsModule } from '../job-runs/job-runs.module';
import { DartModule } from '../upstream/dart/dart.module';
import { CorpCodes } from './corp-codes';
import { StockSyncController } from './stock-sync.controller';
import { StockSyncJob } from './stock-sync.job';
import { StockSyncService } from './stock-sync.service';
import { StocksController } from './stocks.controller';
import { Stocks } from './stocks';
import { StocksService } from './stocks.service';

@Module({
  imports: [DartModule, DisclosuresModule, JobRunsModule],
  controllers: [StocksController, StockSyncController],
  providers: [CorpCodes, Stocks, StocksService, StockSyncService, StockSyncJob],
  exports: [StocksService, Stocks],
})
export class StocksModule {}
