import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CorpCodePipe } from '../common/http/path-parameter.pipes';
import { HttpCache } from '../http-cache/http-cache.decorator';
import { CompaniesService } from './companies.service';
import { CompanyView } from './company.view';
import { ApiErrors } from '../common/http/api-errors';

@ApiTags('companies')
@Controller('api/v1/companies')
export class CompaniesController {
  constructor(private readonly companies: CompaniesService) {}

  @Get(':corpCode')
  @HttpCache({ ttlSeconds: 600 })
  @ApiOperation({ summary: 'Basic data of a company, from the disclosure system' })
  // A company of `npm start`'s local disclosure system, so that "Try it out" works there.
  @ApiParam({ name: 'corpCode', example: '00100008', description: 'Company code, 8 digits' })
  @ApiOkResponse({ type: CompanyView })
  @ApiErrors({
    VALIDATION_FAILED: 'corpCode is not 8 digits',
    COMPANY_NOT_FOUND: 'not in the corp-code list, or unknown to the disclosure system',
    UPSTREAM_UNAVAILABLE:
      'nothing is stored and the disclosure system failed, is in maintenance or did not answer within DART_PUBLIC_READ_DEADLINE_MS (with Retry-After)',
    UPSTREAM_BUSY: 'nothing is stored and the disclosure-system budget has no slot soon enough (with Retry-After)',
  })
  find(@Param('corpCode', CorpCodePipe) corpCode: string): Promise<CompanyView> {
    return this.companies.find(corpCode);
  }
}
