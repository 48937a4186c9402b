import { Controller, Get, HttpCode, HttpStatus, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../admin/admin-key.guard';
import { STOCK_SYNC_STATUS_EXAMPLE, StockSyncQuery, StockSyncStartedResponse, StockSyncStatusResponse } from './dto/stocks.dto';
import { StockSyncService } from './stock-sync.service';
import { ApiErrors } from '../common/http/api-errors';

@ApiTags('admin')
@AdminOnly()
@Controller('api/v1/admin/stocks/sync')
export class StockSyncController {
  constructor(private readonly sync: StockSyncService) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Start a stock master sync in the background (incremental by default)',
    description: 'One sync at a time in the whole fleet; it is executed by the instance leading the stock-sync job and survives restarts.',
  })
  @ApiAcceptedResponse({ type: StockSyncStartedResponse })
  @ApiErrors({
    VALIDATION_FAILED: 'mode is not incremental or bootstrap',
    STOCK_SYNC_RUNNING: 'a sync is already running (on any instance)',
  })
  async start(@Query() query: StockSyncQuery): Promise<StockSyncStartedResponse> {
    await this.sync.start(query.mode);
    return { message: 'Stock sync started', mode: query.mode };
  }

  @Get('status')
  @ApiOperation({ summary: 'Progress of the current or last stock sync of the fleet (from any instance)' })
  @ApiOkResponse({ type: StockSyncStatusResponse, example: STOCK_SYNC_STATUS_EXAMPLE })
  status(): Promise<StockSyncStatusResponse> {
    return this.sync.status();
  }
}
