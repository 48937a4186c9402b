import { Module } from '@nestjs/common';
import { DartModule } from '../upstream/dart/dart.module';
import { StockSyncController } from './stock-sync.controller';
import { StockSyncJob } from './stock-sync.job';
import { StockSyncService } from './stock-sync.service';
import { StocksController } from './stocks.controller';
import { StocksService } from './stocks.service';

@Module({
  imports: [DartModule],
  controllers: [StocksController, StockSyncController],
  providers: [StocksService, StockSyncService, StockSyncJob],
  exports: [StocksService],
})
export class StocksModule {}
