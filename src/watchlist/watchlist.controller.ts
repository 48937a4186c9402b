import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { CorpCodePipe } from '../common/http/path-parameter.pipes';
import { AddWatchRequest, SetNotifyRequest, WatchEntryView, WatchlistCapacityResponse, WatchlistFullErrorBody } from './dto/watchlist.dto';
import { DisclosuresRepository } from '../disclosures/disclosures.repository';
import { DisclosureView } from '../disclosures/disclosure.view';
import { ReceiptCursorQuery } from '../common/paging/paging';
import { AppError } from '../common/errors/app-error';
import { DowngradeCleanupInterceptor } from './downgrade-cleanup.interceptor';
import { WatchlistService } from './watchlist.service';
import { ApiErrors } from '../common/http/api-errors';

// A company of `npm start`'s local disclosure system, so that "Try it out" works there.
const CORP_CODE_PARAM = { name: 'corpCode', example: '00100008', description: 'Company code, 8 digits' };

@ApiTags('watchlist')
@Authenticated()
@Controller('api/v1/watchlist')
export class WatchlistController {
  constructor(
    private readonly watchlist: WatchlistService,
    private readonly disclosures: DisclosuresRepository,
  ) {}

  @Get()
  @UseInterceptors(DowngradeCleanupInterceptor)
  @ApiOperation({ summary: "The caller's watch entries, newest first" })
  @ApiOkResponse({ type: [WatchEntryView] })
  list(@CurrentUser() user: AuthenticatedUser): Promise<WatchEntryView[]> {
    return this.watchlist.list(user.userId);
  }

  @Get('disclosures')
  @ApiOperation({
    summary: 'One feed of everything the caller follows: the newest filings of the watched companies, with their summaries',
    description: 'Newest first (rcept_dt, creation time, rcept_no); `limit` default 20, at most 50; `before` continues after that filing.',
  })
  @ApiOkResponse({ type: [DisclosureView] })
  @ApiErrors({ VALIDATION_FAILED: 'limit is not an integer, or before is not the rcept_no of a stored filing' })
  async watchedDisclosures(@CurrentUser() user: AuthenticatedUser, @Query() query: ReceiptCursorQuery): Promise<DisclosureView[]> {
    const feed = await this.disclosures.watchedFeed(user.userId, query.limit, query.before);
    if (feed === null) throw new AppError('VALIDATION_FAILED', `before: no filing ${query.before}`);
    return feed;
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
  @ApiErrors({
    VALIDATION_FAILED: 'corp_code missing or not 8 digits',
    UNKNOWN_STOCK: 'not in the stock master',
    WATCHLIST_FULL: {
      when: 'the tier allows no more entries; with capacity and used',
      type: WatchlistFullErrorBody,
      extras: { capacity: 3, used: 3 },
    },
  })
  add(@CurrentUser() user: AuthenticatedUser, @Body() body: AddWatchRequest): Promise<WatchEntryView> {
    return this.watchlist.add(user.userId, body.corp_code);
  }

  @Delete(':corpCode')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Stop watching a company' })
  @ApiParam(CORP_CODE_PARAM)
  @ApiNoContentResponse({ description: 'The entry is removed' })
  @ApiErrors({ VALIDATION_FAILED: 'corpCode is not 8 digits', WATCH_ENTRY_NOT_FOUND: 'the company is not on the watchlist' })
  async remove(@CurrentUser() user: AuthenticatedUser, @Param('corpCode', CorpCodePipe) corpCode: string): Promise<void> {
    await this.watchlist.remove(user.userId, corpCode);
  }

  @Patch(':corpCode/notify')
  @ApiOperation({
    summary: 'Turn push messages for new filings of a watched company on or off, and choose which filings they are for',
    description:
      'Takes any of `notify_enabled`, `categories` and `min_impact`; an absent field stays as it is, and null clears a filter. ' +
      'Quiet hours are per user: `PUT /api/v1/push/preferences`.',
  })
  @ApiParam(CORP_CODE_PARAM)
  @ApiOkResponse({ type: WatchEntryView, description: 'The entry after the change' })
  @ApiErrors({
    VALIDATION_FAILED:
      'corpCode is not 8 digits; none of the three fields given; notify_enabled not a boolean; an unknown category or impact level',
    WATCH_ENTRY_NOT_FOUND: 'the company is not on the watchlist',
  })
  setNotify(
    @CurrentUser() user: AuthenticatedUser,
    @Param('corpCode', CorpCodePipe) corpCode: string,
    @Body() body: SetNotifyRequest,
  ): Promise<WatchEntryView> {
    if (body.notify_enabled === undefined && body.categories === undefined && body.min_impact === undefined) {
      throw new AppError('VALIDATION_FAILED', 'give notify_enabled, categories or min_impact');
    }
    return this.watchlist.setNotify(user.userId, corpCode, {
      notifyEnabled: body.notify_enabled,
      categories: body.categories,
      minImpact: body.min_impact,
    });
  }
}
