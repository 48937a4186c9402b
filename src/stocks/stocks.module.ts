import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DisclosuresModule } from '../disclosures/disclosures.module';
import { DartModule } from '../upstream/dart/dart.module';
import { CorpCodes } from './corp-codes';
import { StockSyncController } from './stock-sync.controller';
import { StockSyncService } from './stock-sync.service';
import { StocksController } from './stocks.controller';
import { Stocks } from './stocks';
import { StocksService } from './stocks.service';
import { CorpCodeEntity } from './corp-code.entity';
import { StockEntity } from './stock.entity';

@Module({
  imports: [TypeOrmModule.forFeature([CorpCodeEntity, StockEntity]), DartModule, DisclosuresModule],
  controllers: [StocksController, StockSyncController],
  providers: [CorpCodes, Stocks, StocksService, StockSyncService],
  exports: [StocksService, Stocks],
})
export class StocksModule {}
