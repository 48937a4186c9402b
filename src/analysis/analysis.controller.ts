import { Controller, Get, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RequiresAttestation } from '../attestation/requires-attestation.decorator';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import type { AuthenticatedUser } from '../auth/jwt.strategy';
import { OptionalAuthentication } from '../auth/optional-jwt-auth.guard';
import { RceptNoPipe } from '../common/http/path-parameter.pipes';
import { AnalysisService } from './analysis.service';
import { AnalysisMetaResponse, RevealResponse, QuotaExhaustedErrorBody } from './dto/analysis.dto';
import { ApiErrors } from '../common/http/api-errors';

@ApiTags('analysis')
@Controller('api/v1/ai/analyze')
export class AnalysisController {
  constructor(private readonly analyses: AnalysisService) {}

  @Get(':rceptNo')
  @OptionalAuthentication()
  @ApiOperation({
    summary: 'The stored analysis of a filing (never calls the AI, never spends quota)',
    description:
      'Anonymous callers get the one-liner and never `result`; signed-in callers get `result` for short filings and filings they revealed.',
  })
  @ApiOkResponse({ type: AnalysisMetaResponse })
  @ApiErrors({ VALIDATION_FAILED: 'rceptNo is not 14 digits', NOT_FOUND: 'unknown filing' })
  meta(
    @Param('rceptNo', RceptNoPipe) rceptNo: string,
    @Req() req: Request & { user?: AuthenticatedUser | null },
  ): Promise<AnalysisMetaResponse> {
    return this.analyses.meta(rceptNo, req.user?.userId ?? null);
  }

  @Post(':rceptNo/reveal')
  @HttpCode(HttpStatus.OK)
  // Guards run bottom-up: the token is checked (401) before the device (403).
  @RequiresAttestation()
  @Authenticated()
  @ApiOperation({ summary: 'Reveal the full analysis, spending one unit of the weekly quota the first time' })
  @ApiOkResponse({ type: RevealResponse })
  @ApiErrors({
    VALIDATION_FAILED: 'rceptNo is not 14 digits',
    NOT_FOUND: 'unknown filing',
    NOT_READY: 'the analysis is not completed',
    QUOTA_EXHAUSTED: {
      when: 'the weekly quota is used up; with can_watch_ad: true',
      type: QuotaExhaustedErrorBody,
      extras: { can_watch_ad: true },
    },
  })
  reveal(@Param('rceptNo', RceptNoPipe) rceptNo: string, @CurrentUser() user: AuthenticatedUser): Promise<RevealResponse> {
    return this.analyses.reveal(user.userId, rceptNo);
  }
}
