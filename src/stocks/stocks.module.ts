import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DisclosuresModule } from '../disclosures/disclosures.module';
import { DartModule } from '../upstream/dart/dart.module';
import { CorpCodesRepository } from './corp-codes.repository';
import { StockSyncController } from './stock-sync.controller';
import { StockSyncService } from './stock-sync.service';
import { StocksController } from './stocks.controller';
import { StocksRepository } from './stocks.repository';
import { StocksService } from './stocks.service';
import { CorpCodeEntity } from './corp-code.entity';
import { StockEntity } from './stock.entity';

@Module({
  imports: [TypeOrmModule.forFeature([CorpCodeEntity, StockEntity]), DartModule, DisclosuresModule],
  controllers: [StocksController, StockSyncController],
  providers: [CorpCodesRepository, StocksRepository, StocksService, StockSyncService],
  exports: [StocksService, StocksRepository],
})
export class StocksModule {}
