import { Controller, Get, HttpCode, HttpStatus, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../admin/admin-key.guard';
import { ErrorBody } from '../common/errors/error-body';
import { StockSyncQuery, StockSyncStartedResponse, StockSyncStatusResponse } from './dto/stocks.dto';
import { StockSyncService } from './stock-sync.service';

@ApiTags('admin')
@AdminOnly()
@Controller('api/v1/admin/stocks/sync')
export class StockSyncController {
  constructor(private readonly sync: StockSyncService) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: 'Start a stock master sync in the background (incremental by default)' })
  @ApiAcceptedResponse({ type: StockSyncStartedResponse })
  @ApiConflictResponse({ type: ErrorBody, description: 'A sync is already running' })
  start(@Query() query: StockSyncQuery): StockSyncStartedResponse {
    this.sync.start(query.mode);
    return { message: 'Stock sync started', mode: query.mode };
  }

  @Get('status')
  @ApiOperation({ summary: 'Progress of the current or last stock sync' })
  @ApiOkResponse({ type: StockSyncStatusResponse })
  status(): StockSyncStatusResponse {
    return this.sync.status();
  }
}
