import { Controller, Get, Param } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorBody } from '../common/errors/error-body';
import { CorpCodePipe } from '../common/http/path-parameter.pipes';
import { HttpCache } from '../common/http-cache/http-cache.decorator';
import { CompaniesService } from './companies.service';
import { CompanyView } from './company.view';

@ApiTags('companies')
@Controller('api/v1/companies')
export class CompaniesController {
  constructor(private readonly companies: CompaniesService) {}

  @Get(':corpCode')
  @HttpCache({ ttlSeconds: 600 })
  @ApiOperation({ summary: 'Basic data of a company, from the disclosure system' })
  @ApiOkResponse({ type: CompanyView })
  @ApiBadRequestResponse({ type: ErrorBody, description: 'corpCode is not 8 digits' })
  @ApiNotFoundResponse({ type: ErrorBody, description: 'COMPANY_NOT_FOUND: not in the corp-code list, or unknown to the disclosure system' })
  @ApiServiceUnavailableResponse({
    type: ErrorBody,
    description: 'Nothing is stored and the disclosure system is unavailable, or busy (UPSTREAM_BUSY, with Retry-After)',
  })
  find(@Param('corpCode', CorpCodePipe) corpCode: string): Promise<CompanyView> {
    return this.companies.find(corpCode);
  }
}
