import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError } from '../common/errors/app-error';
import { RceptNoPipe } from '../common/http/path-parameter.pipes';
import { HttpCache } from '../http-cache/http-cache.decorator';
import { DisclosureView } from './disclosure.view';
import { DisclosuresService } from './disclosures.service';
import { ListDisclosuresQuery, RecentDisclosuresQuery } from './dto/list-disclosures.dto';
import { ApiErrors } from '../common/http/api-errors';

@ApiTags('disclosures')
@Controller('api/v1/disclosures')
export class DisclosuresController {
  constructor(private readonly disclosures: DisclosuresService) {}

  @Get('recent')
  @HttpCache({ ttlSeconds: 30 })
  @ApiOperation({ summary: 'The newest filings (limit default 10, at most 50)' })
  @ApiOkResponse({ type: [DisclosureView] })
  @ApiErrors({ VALIDATION_FAILED: 'limit is not an integer' })
  recent(@Query() query: RecentDisclosuresQuery): Promise<DisclosureView[]> {
    return this.disclosures.recent(query.limit);
  }

  @Get(':rceptNo')
  @HttpCache({ ttlSeconds: 300 })
  @ApiOperation({ summary: 'One filing (metadata only)' })
  @ApiOkResponse({ type: DisclosureView })
  @ApiErrors({ VALIDATION_FAILED: 'rceptNo is not 14 digits', NOT_FOUND: 'no such filing is stored' })
  async findOne(@Param('rceptNo', RceptNoPipe) rceptNo: string): Promise<DisclosureView> {
    const disclosure = await this.disclosures.findOne(rceptNo);
    if (!disclosure) throw new AppError('NOT_FOUND', `No filing ${rceptNo}`);
    return disclosure;
  }

  @Get()
  @HttpCache({ ttlSeconds: 60 })
  @ApiOperation({
    summary: 'Filings by company, by date range, or with a summary',
    description:
      'One filter is required: `corpCode` (limit default 50, max 200), `beginDate`+`endDate` (limit default 50, max 200) ' +
      'or `hasSummary=true` (limit default 20, max 20; combinable with `corpCode`). Newest first.',
  })
  @ApiOkResponse({ type: [DisclosureView] })
  @ApiErrors({ VALIDATION_FAILED: 'no filter, a bad value, or a date range without both ends' })
  list(@Query() query: ListDisclosuresQuery): Promise<DisclosureView[]> {
    const withSummary = query.hasSummary === 'true';
    const hasRange = query.beginDate !== undefined || query.endDate !== undefined;
    if (hasRange && (query.beginDate === undefined || query.endDate === undefined)) {
      throw new AppError('VALIDATION_FAILED', 'beginDate and endDate go together');
    }
    if (!withSummary && !hasRange && query.corpCode === undefined) {
      throw new AppError('VALIDATION_FAILED', 'Give corpCode, beginDate and endDate, or hasSummary=true');
    }
    return this.disclosures.list({
      corpCode: query.corpCode,
      beginDate: query.beginDate,
      endDate: query.endDate,
      withSummary,
      limit: query.limit,
    });
  }
}
