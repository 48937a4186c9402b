import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { IsNotBefore, IsYmdDate } from '../../common/validation/date-validators';
import { QueryInteger } from '../../common/validation/query-integer';
import { DisclosureView } from '../disclosure.view';
import { JobRunStatusView } from '../../jobs/runs/job-run-status.view';
import { DART_BUDGET_STATUS_EXAMPLE, DartBudgetStatusView } from '../../upstream/dart/dart-budget-status.view';

export class FetchDisclosuresQuery {
  @ApiProperty({ example: '20261120', description: 'YYYYMMDD' })
  @IsDefined({ message: 'beginDate is required' })
  @IsYmdDate()
  beginDate: string;

  @ApiProperty({ example: '20261121', description: 'YYYYMMDD, not before beginDate' })
  @IsDefined({ message: 'endDate is required' })
  @IsYmdDate()
  @IsNotBefore('beginDate')
  endDate: string;

  @ApiPropertyOptional({
    example: '00100008',
    description: "Without it, the main-board class is queried (the example is one of npm start's local disclosure system)",
  })
  @IsOptional()
  @Matches(/^\d{8}$/, { message: 'corpCode must be 8 digits' })
  corpCode?: string;

  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  pageNo: number = 1;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  @Max(100)
  pageCount: number = 20;
}

export class FetchDisclosuresResponse {
  @ApiProperty({ description: 'Filings in the upstream page', example: 20 })
  fetched: number;

  @ApiProperty({ description: 'Of those, filings that were new and are now stored', example: 3 })
  saved: number;

  @ApiProperty({ type: [DisclosureView] })
  disclosures: DisclosureView[];
}

export class BackfillQuery {
  @ApiProperty({ example: '20260801' })
  @IsDefined({ message: 'fromDate is required' })
  @IsYmdDate()
  fromDate: string;

  @ApiProperty({ example: '20261121' })
  @IsDefined({ message: 'toDate is required' })
  @IsYmdDate()
  @IsNotBefore('fromDate')
  toDate: string;

  @ApiPropertyOptional({ default: 300, minimum: 0, maximum: 60000, description: 'Pause after each new filing, in ms' })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(0)
  @Max(60_000)
  delayMs: number = 300;
}

export class BackfillStartedResponse {
  @ApiProperty({ example: 'Backfill started' })
  message: string;

  @ApiProperty({ example: '20260801' })
  fromDate: string;

  @ApiProperty({ example: '20261121' })
  toDate: string;
}

/** phase: counting (one list call per 28-day window, total null until done), then collecting. */
export class BackfillStatusResponse extends JobRunStatusView {
  @ApiProperty({ nullable: true, type: String })
  fromDate: string | null;
  @ApiProperty({ nullable: true, type: String })
  toDate: string | null;
  @ApiProperty({ description: 'Of the processed filings, those that were new and are now stored' })
  saved: number;
  @ApiProperty({ type: DartBudgetStatusView, description: 'The disclosure-system budget (shared by every job)' })
  upstream: DartBudgetStatusView;
}

/** A backfill half way through, for the OpenAPI document (the phases differ per job, so the example is whole). */
export const BACKFILL_STATUS_EXAMPLE: BackfillStatusResponse = {
  status: 'running',
  phase: 'collecting',
  total: 1840,
  processed: 912,
  failed: 2,
  started_at: '2026-11-24T05:00:00.000Z',
  resumed_at: null,
  finished_at: null,
  last_error: null,
  rate_per_second: 3.04,
  eta_seconds: 306,
  fromDate: '20260801',
  toDate: '20261121',
  saved: 874,
  upstream: DART_BUDGET_STATUS_EXAMPLE,
};
