import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { type LimitRange, PagingLimit } from '../../common/paging/paging';
import { JobRunStatusView } from '../../jobs/runs/job-run-status.view';
import { DART_BUDGET_STATUS_EXAMPLE, DartBudgetStatusView } from '../../upstream/dart/dart-budget-status.view';

export class SearchStocksQuery {
  @ApiPropertyOptional({ description: 'Part of a company name (any case) or an exact stock code; empty gives []' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  query?: string;
}

/** GET /stocks/active: default 8, 1 to 20, clamped (the specification says so of this route). */
export const ACTIVE_STOCKS_LIMITS: LimitRange = { fallback: 8, max: 20 };

export class ActiveStocksQuery {
  @PagingLimit(ACTIVE_STOCKS_LIMITS)
  limit: number;
}

export class StockSyncQuery {
  @ApiPropertyOptional({ enum: ['incremental', 'bootstrap'], default: 'incremental' })
  @IsOptional()
  @IsIn(['incremental', 'bootstrap'], { message: 'mode must be incremental or bootstrap' })
  mode: 'incremental' | 'bootstrap' = 'incremental';
}

export class StockSyncStartedResponse {
  @ApiProperty({ example: 'Stock sync started' })
  message: string;

  @ApiProperty({ enum: ['incremental', 'bootstrap'] })
  mode: string;
}

/**
 * phase: downloading (corpCode.xml into corp_codes; total null until parsed),
 * looking-up (company.json per candidate), removing (bootstrap only).
 */
export class StockSyncStatusResponse extends JobRunStatusView {
  @ApiProperty({ enum: ['incremental', 'bootstrap'], nullable: true, type: String })
  mode: string | null;
  @ApiProperty()
  added: number;
  @ApiProperty()
  updated: number;
  @ApiProperty()
  removed: number;
  @ApiProperty({ type: DartBudgetStatusView, description: 'The disclosure-system budget (shared by every job)' })
  upstream: DartBudgetStatusView;
}

/** An incremental sync looking new companies up, for the OpenAPI document (whole, as its phases are its own). */
export const STOCK_SYNC_STATUS_EXAMPLE: StockSyncStatusResponse = {
  status: 'running',
  phase: 'looking-up',
  total: 64,
  processed: 40,
  failed: 0,
  started_at: '2026-11-24T20:00:00.000Z',
  resumed_at: null,
  finished_at: null,
  last_error: null,
  rate_per_second: 2.5,
  eta_seconds: 10,
  mode: 'incremental',
  added: 3,
  updated: 0,
  removed: 0,
  upstream: DART_BUDGET_STATUS_EXAMPLE,
};
