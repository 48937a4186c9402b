import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HttpCache } from '../http-cache/http-cache.decorator';
import { ApiErrors } from '../common/http/api-errors';
import { ActiveStocksQuery, SearchStocksQuery } from './dto/stocks.dto';
import { ActiveStockView, StockView } from './stock.view';
import { StocksService } from './stocks.service';

@ApiTags('stocks')
@Controller('api/v1/stocks')
export class StocksController {
  constructor(private readonly stocks: StocksService) {}

  @Get('search')
  @HttpCache({ ttlSeconds: 60 })
  @ApiOperation({ summary: 'Listed companies by part of the name (any case) or exact stock code; at most 20, by name' })
  @ApiOkResponse({ type: [StockView] })
  @ApiErrors({ VALIDATION_FAILED: 'query is longer than 100 characters, or repeated' })
  search(@Query() query: SearchStocksQuery): Promise<StockView[]> {
    return this.stocks.search(query.query ?? '');
  }

  @Get('active')
  // "Today" is the Korean calendar day: a list cached before midnight KST is not served after it.
  @HttpCache({ ttlSeconds: 300, perKstDay: true })
  @ApiOperation({ summary: 'Companies with a summarised filing today (Korea time), newest first; limit 1..20, default 8' })
  @ApiOkResponse({ type: [ActiveStockView] })
  @ApiErrors({ VALIDATION_FAILED: 'limit is not an integer' })
  active(@Query() query: ActiveStocksQuery): Promise<ActiveStockView[]> {
    return this.stocks.active(query.limit);
  }
}
