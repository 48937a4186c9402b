import { Module } from '@nestjs/common';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DowngradeCleanupInterceptor } from './downgrade-cleanup.interceptor';
import { DowngradeCleanupService } from './downgrade-cleanup.service';
import { WatchlistController } from './watchlist.controller';
import { WatchlistService } from './watchlist.service';

/** The watchlist routes, the capacity they enforce, and the downgrade cleanup that trims to it. */
@Module({
  imports: [SubscriptionsModule],
  controllers: [WatchlistController],
  providers: [WatchlistService, DowngradeCleanupService, DowngradeCleanupInterceptor],
  exports: [WatchlistService],
})
export class WatchlistModule {}
