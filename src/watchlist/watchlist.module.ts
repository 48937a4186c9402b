import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DisclosuresModule } from '../disclosures/disclosures.module';
import { StocksModule } from '../stocks/stocks.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { UsersModule } from '../users/users.module';
import { DowngradeCleanupInterceptor } from './downgrade-cleanup.interceptor';
import { DowngradeCleanupService } from './downgrade-cleanup.service';
import { WatchStocksRepository } from './watch-stocks.repository';
import { WatchlistController } from './watchlist.controller';
import { WatchlistService } from './watchlist.service';
import { WatchStockEntity } from './watch-stock.entity';

/** The watchlist routes, the capacity they enforce, and the downgrade cleanup that trims to it. */
@Module({
  imports: [TypeOrmModule.forFeature([WatchStockEntity]), SubscriptionsModule, UsersModule, StocksModule, DisclosuresModule],
  controllers: [WatchlistController],
  providers: [WatchStocksRepository, WatchlistService, DowngradeCleanupService, DowngradeCleanupInterceptor],
  exports: [WatchlistService],
})
export class WatchlistModule {}
