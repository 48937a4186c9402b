import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { type LimitRange, PagingLimit } from '../../common/paging/paging';
import { IsNotBefore, IsYmdDate } from '../../common/validation/date-validators';

/** The public feeds' limits (the specification's): what a request without `limit` gets, and the most it may ask for. */
export const FEED_LIMITS = {
  /** GET /disclosures/recent */
  recent: { fallback: 10, max: 50 },
  /** GET /disclosures by company or by dates */
  filtered: { fallback: 50, max: 200 },
  /** GET /disclosures?hasSummary=true */
  summarised: { fallback: 20, max: 20 },
} as const satisfies Record<string, LimitRange>;

export class RecentDisclosuresQuery {
  @PagingLimit(FEED_LIMITS.recent)
  limit: number;
}

export class ListDisclosuresQuery {
  @PagingLimit(
    (query) => (query.hasSummary === 'true' ? FEED_LIMITS.summarised : FEED_LIMITS.filtered),
    'With hasSummary=true: default 20, clamped to 1..20; otherwise: default 50, clamped to 1..200',
  )
  limit: number;

  @ApiPropertyOptional({
    example: '00100008',
    description: "Company code, 8 digits (the example is one of npm start's local disclosure system)",
  })
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
