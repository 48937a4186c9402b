import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { ErrorBody } from '../common/errors/error-body';
import { CorpCodePipe } from '../common/http/path-parameter.pipes';
import {
  AddWatchRequest,
  SetNotifyRequest,
  WatchEntryView,
  WatchlistCapacityResponse,
  WatchlistFullErrorBody,
} from './dto/watchlist.dto';
import { DowngradeCleanupInterceptor } from './downgrade-cleanup.interceptor';
import { WatchlistService } from './watchlist.service';

const CORP_CODE_PARAM = { name: 'corpCode', example: '00126380', description: 'Company code, 8 digits' };

@ApiTags('watchlist')
@Authenticated()
@Controller('api/v1/watchlist')
export class WatchlistController {
  constructor(private readonly watchlist: WatchlistService) {}

  @Get()
  @UseInterceptors(DowngradeCleanupInterceptor)
  @ApiOperation({ summary: "The caller's watch entries, newest first" })
  @ApiOkResponse({ type: [WatchEntryView] })
  list(@CurrentUser() user: AuthenticatedUser): Promise<WatchEntryView[]> {
    return this.watchlist.list(user.userId);
  }

  @Get('capacity')
  @UseInterceptors(DowngradeCleanupInterceptor)
  @ApiOperation({ summary: 'Watchlist capacity of the active tier (3 / 30 / 100), entries used and room left' })
  @ApiOkResponse({ type: WatchlistCapacityResponse })
  capacity(@CurrentUser() user: AuthenticatedUser): Promise<WatchlistCapacityResponse> {
    return this.watchlist.capacity(user.userId);
  }

  @Post()
  @ApiOperation({
    summary: 'Watch a company of the stock master',
    description: 'An entry that exists already is answered as it is (201), without a capacity check.',
  })
  @ApiCreatedResponse({ type: WatchEntryView, description: 'The new entry, or the existing one' })
  @ApiBadRequestResponse({ type: ErrorBody, description: 'corp_code missing or not 8 digits; UNKNOWN_STOCK: not in the stock master' })
  @ApiConflictResponse({ type: WatchlistFullErrorBody, description: 'WATCHLIST_FULL, with capacity and used' })
  @ApiTooManyRequestsResponse({ type: ErrorBody, description: 'Rate limited; see Retry-After' })
  add(@CurrentUser() user: AuthenticatedUser, @Body() body: AddWatchRequest): Promise<WatchEntryView> {
    return this.watchlist.add(user.userId, body.corp_code);
  }

  @Delete(':corpCode')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Stop watching a company' })
  @ApiParam(CORP_CODE_PARAM)
  @ApiNoContentResponse({ description: 'The entry is removed' })
  @ApiBadRequestResponse({ type: ErrorBody, description: 'corpCode is not 8 digits' })
  @ApiNotFoundResponse({ type: ErrorBody, description: 'WATCH_ENTRY_NOT_FOUND: the company is not on the watchlist' })
  @ApiTooManyRequestsResponse({ type: ErrorBody, description: 'Rate limited; see Retry-After' })
  async remove(@CurrentUser() user: AuthenticatedUser, @Param('corpCode', CorpCodePipe) corpCode: string): Promise<void> {
    await this.watchlist.remove(user.userId, corpCode);
  }

  @Patch(':corpCode/notify')
  @ApiOperation({ summary: 'Turn push messages for new filings of a watched company on or off' })
  @ApiParam(CORP_CODE_PARAM)
  @ApiOkResponse({ type: WatchEntryView, description: 'The entry after the change' })
  @ApiBadRequestResponse({ type: ErrorBody, description: 'corpCode is not 8 digits, or notify_enabled is missing or not a boolean' })
  @ApiNotFoundResponse({ type: ErrorBody, description: 'WATCH_ENTRY_NOT_FOUND: the company is not on the watchlist' })
  @ApiTooManyRequestsResponse({ type: ErrorBody, description: 'Rate limited; see Retry-After' })
  setNotify(
    @CurrentUser() user: AuthenticatedUser,
    @Param('corpCode', CorpCodePipe) corpCode: string,
    @Body() body: SetNotifyRequest,
  ): Promise<WatchEntryView> {
    return this.watchlist.setNotify(user.userId, corpCode, body.notify_enabled);
  }
}
