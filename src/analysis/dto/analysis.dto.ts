import { ApiProperty } from '@nestjs/swagger';
import { QuotaResponse } from '../../quota/dto/quota.dto';
import { DartBudgetStatusView } from '../../upstream/dart/dart-budget-status.view';
import type { AnalysisMeta, RevealAnswer } from '../analysis.service';
import { AnalysisResultDto } from '../analyzers/analysis-result.dto';

/**
 * The OpenAPI mirror of `AnalysisMeta`: `implements` holds it to the service's answer,
 * and the controller returning one as the other holds the reverse.
 */
export class AnalysisMetaResponse implements AnalysisMeta {
  @ApiProperty({ enum: ['PENDING', 'COMPLETED', 'UNAVAILABLE'], description: 'PENDING covers queued and in progress' })
  status: 'PENDING' | 'COMPLETED' | 'UNAVAILABLE';

  @ApiProperty({ type: Number, nullable: true, description: 'Length of the filing text; null until analysed' })
  doc_length: number | null;

  @ApiProperty({ description: 'doc_length below 1000: the analysis is free and public' })
  is_short: boolean;

  @ApiProperty({ description: 'The caller revealed this filing before' })
  already_revealed: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'One-line summary, at most 100 characters' })
  one_liner: string | null;

  @ApiProperty({ type: AnalysisResultDto, nullable: true, description: 'Signed-in callers only, and only when is_short or already_revealed; never for anonymous callers' })
  result: AnalysisResultDto | null;
}

/** The OpenAPI mirror of `RevealAnswer`, held to it like `AnalysisMetaResponse`. */
export class RevealResponse implements RevealAnswer {
  @ApiProperty({ example: '20261121000123' })
  rcept_no: string;

  @ApiProperty()
  one_liner: string;

  @ApiProperty({ type: AnalysisResultDto })
  result: AnalysisResultDto;

  @ApiProperty({ type: QuotaResponse, description: 'The quota after this reveal' })
  quota: QuotaResponse;
}

export class SchedulerStatusResponse {
  @ApiProperty({ enum: ['running', 'paused'] })
  status: 'running' | 'paused';

  @ApiProperty({ description: 'Analyses in progress on this instance' })
  activeThreads: number;

  @ApiProperty({ description: 'ANALYSIS_CONCURRENCY' })
  concurrency: number;

  @ApiProperty({ description: 'Analyses completed by this instance since it started' })
  totalSuccess: number;

  @ApiProperty({ description: 'Failed attempts on this instance since it started' })
  totalFailed: number;

  @ApiProperty({ description: 'Analyses waiting or in progress, all instances' })
  queued: number;

  @ApiProperty({ type: String, nullable: true })
  lastError: string | null;

  @ApiProperty({ type: DartBudgetStatusView, description: 'The disclosure-system budget; analyses wait while it is spent' })
  upstream: DartBudgetStatusView;
}
