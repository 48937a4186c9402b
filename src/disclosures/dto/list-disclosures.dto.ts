import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches } from 'class-validator';
import { IsNotBefore, IsYmdDate } from '../../common/validation/date-validators';

/** `limit` is an integer; values outside a route's range are clamped to it. */
export class LimitQuery {
  @ApiPropertyOptional({ description: 'Clamped to the route range' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  limit?: number;
}

/** A page of a feed ordered by filing: `limit`, and `before`, the last rcept_no of the previous page. */
export class ReceiptCursorQuery extends LimitQuery {
  @ApiPropertyOptional({ example: '20261121000123', description: 'Continue after this filing (the last rcept_no of the previous page)' })
  @IsOptional()
  @Matches(/^\d{14}$/, { message: 'before must be a rcept_no of 14 digits' })
  before?: string;
}

export class ListDisclosuresQuery extends LimitQuery {
  @ApiPropertyOptional({ example: '00126380' })
  @IsOptional()
  @Matches(/^\d{8}$/, { message: 'corpCode must be 8 digits' })
  corpCode?: string;

  @ApiPropertyOptional({ example: '20261101', description: 'YYYYMMDD; with endDate' })
  @IsOptional()
  @IsYmdDate()
  beginDate?: string;

  @ApiPropertyOptional({ example: '20261121', description: 'YYYYMMDD; with beginDate' })
  @IsOptional()
  @IsYmdDate()
  @IsNotBefore('beginDate')
  endDate?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'hasSummary must be true or false' })
  hasSummary?: 'true' | 'false';
}

/** The public feeds' limits: what a request without `limit` gets, and the most it may ask for. */
export const FEED_LIMITS = {
  /** GET /disclosures/recent */
  recent: { fallback: 10, max: 50 },
  /** GET /disclosures by company or by dates */
  filtered: { fallback: 50, max: 200 },
  /** GET /disclosures?hasSummary=true */
  summarised: { fallback: 20, max: 20 },
} as const;

export function clamp(value: number | undefined, fallback: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value ?? fallback));
}
