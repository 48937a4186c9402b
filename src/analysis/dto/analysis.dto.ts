import { ErrorBody } from '../../common/errors/error-body';
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

  @ApiProperty({ type: Number, nullable: true, example: 5234, description: 'Length of the filing text; null until analysed' })
  doc_length: number | null;

  @ApiProperty({ example: false, description: 'doc_length below 1000: the analysis is free and public' })
  is_short: boolean;

  @ApiProperty({ example: true, description: 'The caller revealed this filing before' })
  already_revealed: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '가나다전자, 520억원 규모 반도체 장비 공급계약 체결',
    description: 'One-line summary, at most 100 characters',
  })
  one_liner: string | null;

  @ApiProperty({
    type: AnalysisResultDto,
    nullable: true,
    description: 'Signed-in callers only, and only when is_short or already_revealed; never for anonymous callers',
  })
  result: AnalysisResultDto | null;
}

/** The OpenAPI mirror of `RevealAnswer`, held to it like `AnalysisMetaResponse`. */
export class RevealResponse implements RevealAnswer {
  @ApiProperty({ example: '20261121000123' })
  rcept_no: string;

  @ApiProperty({ example: '가나다전자, 520억원 규모 반도체 장비 공급계약 체결' })
  one_liner: string;

  @ApiProperty({ type: AnalysisResultDto })
  result: AnalysisResultDto;

  @ApiProperty({ type: QuotaResponse, description: 'The quota after this reveal' })
  quota: QuotaResponse;
}

export class FleetInstanceView {
  @ApiProperty({ example: 'api-7f9c:1:a1b2c3' })
  id: string;

  @ApiProperty({ example: 'api-7f9c' })
  host: string;

  @ApiProperty({ example: 1 })
  pid: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T05:00:00.000Z' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T06:12:05.000Z' })
  lastHeartbeatAt: string;

  @ApiProperty({ enum: ['running', 'paused'], description: "This instance's analysis scheduler" })
  status: 'running' | 'paused';

  @ApiProperty({ example: 2, description: 'Analyses in progress on this instance' })
  activeThreads: number;

  @ApiProperty({ example: 2, description: "This instance's ANALYSIS_CONCURRENCY" })
  concurrency: number;

  @ApiProperty({ type: [String], example: ['disclosure-monitor', 'stock-sync'], description: 'The singleton jobs this instance runs' })
  singletonJobs: string[];
}

export class SchedulerStatusResponse {
  @ApiProperty({ enum: ['running', 'paused'], description: 'The state set for the fleet; before any, whether a live instance runs' })
  status: 'running' | 'paused';

  @ApiProperty({ example: 2, description: 'Analyses in progress, summed over live instances' })
  activeThreads: number;

  @ApiProperty({ example: 2, description: 'ANALYSIS_CONCURRENCY summed over live instances' })
  concurrency: number;

  @ApiProperty({ example: 18240, description: 'Analyses completed (all instances, from the database)' })
  totalSuccess: number;

  @ApiProperty({ example: 37, description: 'Analyses given up as UNAVAILABLE (all instances, from the database)' })
  totalFailed: number;

  @ApiProperty({ example: 5, description: 'Analyses waiting or in progress, all instances' })
  queued: number;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'The last error of the instance that answers' })
  lastError: string | null;

  @ApiProperty({ type: DartBudgetStatusView, description: 'The disclosure-system budget; analyses wait while it is spent' })
  upstream: DartBudgetStatusView;

  @ApiProperty({ type: [FleetInstanceView], description: 'Live instances (heartbeat within LEADER_TAKEOVER_MS)' })
  instances: FleetInstanceView[];
}

/** The 429 of a reveal past the weekly quota. */
export class QuotaExhaustedErrorBody extends ErrorBody {
  @ApiProperty({ example: true, description: 'A rewarded ad would add a reveal' })
  can_watch_ad: boolean;
}
