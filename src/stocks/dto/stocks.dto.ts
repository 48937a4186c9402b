import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { DartBudgetStatusView } from '../../upstream/dart/dart-budget-status.view';

export class SearchStocksQuery {
  @ApiPropertyOptional({ description: 'Part of a company name (any case) or an exact stock code; empty gives []' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  query?: string;
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

export class StockSyncStatusResponse {
  @ApiProperty({ enum: ['idle', 'running', 'completed', 'failed'] })
  status: string;
  @ApiProperty({ enum: ['incremental', 'bootstrap'], nullable: true, type: String })
  mode: string | null;
  @ApiProperty({ description: 'Companies to look up (new ones, or every stock-coded one in bootstrap)' })
  total: number;
  @ApiProperty()
  processed: number;
  @ApiProperty()
  added: number;
  @ApiProperty()
  updated: number;
  @ApiProperty()
  removed: number;
  @ApiProperty({ description: 'Lookups that failed after retries and were skipped' })
  failed: number;
  @ApiProperty({ nullable: true, type: String })
  started_at: string | null;
  @ApiProperty({ nullable: true, type: String })
  finished_at: string | null;
  @ApiProperty({ nullable: true, type: String })
  last_error: string | null;
  @ApiProperty({ type: DartBudgetStatusView, description: 'The disclosure-system budget (shared by every job)' })
  upstream: DartBudgetStatusView;
}
