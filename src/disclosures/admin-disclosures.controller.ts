import { Controller, Get, HttpCode, HttpStatus, Logger, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../admin/admin-key.guard';
import { AppError } from '../common/errors/app-error';
import { upstreamBusy } from '../upstream/dart/dart-budget';
import { DartClient } from '../upstream/dart/dart-client';
import { DartError } from '../upstream/dart/dart.types';
import { BackfillService } from './backfill.service';
import { DisclosureIngestService, filingToView } from './disclosure-ingest.service';
import {
  BackfillQuery,
  BackfillStartedResponse,
  BACKFILL_STATUS_EXAMPLE,
  BackfillStatusResponse,
  FetchDisclosuresQuery,
  FetchDisclosuresResponse,
} from './dto/admin-disclosures.dto';
import { ApiErrors } from '../common/http/api-errors';

@ApiTags('admin')
@AdminOnly()
@Controller('api/v1/admin')
export class AdminDisclosuresController {
  private readonly logger = new Logger(AdminDisclosuresController.name);

  constructor(
    private readonly dart: DartClient,
    private readonly ingest: DisclosureIngestService,
    private readonly backfill: BackfillService,
  ) {}

  @Post('disclosures/fetch')
  @ApiOperation({ summary: 'Fetch one page of filings from the disclosure system and store the new ones' })
  @ApiCreatedResponse({ type: FetchDisclosuresResponse })
  @ApiErrors({
    VALIDATION_FAILED: 'a date is missing or invalid, endDate before beginDate, or a bad corpCode or page',
    // The specification answers 500 to any failed upstream call or save, unanswered calls included.
    UPSTREAM_FAILED: 'the disclosure system answered an error or did not answer, or the save failed',
    UPSTREAM_BUSY: 'the daily allowance is spent (with Retry-After)',
  })
  async fetch(@Query() query: FetchDisclosuresQuery): Promise<FetchDisclosuresResponse> {
    let page;
    try {
      page = await this.dart.listPage(
        {
          bgnDe: query.beginDate,
          endDe: query.endDate,
          corpCode: query.corpCode,
          // Without a company, the main board is what operators care about.
          corpCls: query.corpCode ? undefined : 'Y',
          pageNo: query.pageNo,
          pageCount: query.pageCount,
        },
        'adminFetch',
      );
    } catch (error) {
      if (error instanceof DartError && error.kind === 'budget') throw upstreamBusy(error);
      const status = error instanceof DartError ? error.status : 'error';
      this.logger.error({ err: error }, `admin fetch: disclosure system call failed (${status})`);
      throw new AppError('UPSTREAM_FAILED', `The disclosure system call failed (${status})`);
    }
    let saved;
    try {
      saved = await this.ingest.saveNew(page.items, 'fetch');
    } catch (error) {
      this.logger.error({ err: error }, 'admin fetch: saving failed');
      throw new AppError('UPSTREAM_FAILED', 'Saving the fetched filings failed');
    }
    return { fetched: page.items.length, saved: saved.length, disclosures: page.items.map(filingToView) };
  }

  @Post('backfill')
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Collect the filings of a date range in the background',
    description:
      'One backfill at a time in the whole fleet; it is executed by the instance leading the backfill job and survives restarts.',
  })
  @ApiAcceptedResponse({ type: BackfillStartedResponse })
  @ApiErrors({
    VALIDATION_FAILED: 'a date is missing or invalid, or delayMs out of range',
    BACKFILL_RUNNING: 'a backfill is already running (on any instance)',
  })
  async startBackfill(@Query() query: BackfillQuery): Promise<BackfillStartedResponse> {
    await this.backfill.start(query.fromDate, query.toDate, query.delayMs);
    return { message: 'Backfill started', fromDate: query.fromDate, toDate: query.toDate };
  }

  @Get('backfill/status')
  @ApiOperation({ summary: 'Progress of the current or last backfill of the fleet (from any instance)' })
  @ApiOkResponse({ type: BackfillStatusResponse, example: BACKFILL_STATUS_EXAMPLE })
  backfillStatus(): Promise<BackfillStatusResponse> {
    return this.backfill.status();
  }
}
