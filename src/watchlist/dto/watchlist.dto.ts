import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  ValidateIf,
} from 'class-validator';
import { IMPACT_LEVELS, type ImpactLevel } from '../../analysis/analyzers/analysis-result.schema';
import { ErrorBody } from '../../common/errors/error-body';
import { REPORT_TYPES, type ReportType } from '../../disclosures/report-type';
import type { WatchEntry, WatchlistCapacity } from '../watchlist.service';

export const CORP_CODE_PATTERN = /^\d{8}$/;

export class AddWatchRequest {
  // A company of `npm start`'s local disclosure system, so that "Try it out" works there.
  @ApiProperty({ example: '00100008', description: 'Company code (8 digits) of a company in the stock master' })
  @IsDefined({ message: 'corp_code is required' })
  @IsString()
  @Matches(CORP_CODE_PATTERN, { message: 'corp_code must be 8 digits' })
  corp_code: string;
}

const CATEGORIES_DESCRIPTION =
  'Push only filings of these categories, derived from the report name (docs/filings-and-companies.md); null: every category';
const MIN_IMPACT_DESCRIPTION =
  'Push only filings whose analysis judged at least this impact; a filing not analysed when the push goes counts as passing. null: any impact';

/** Any of the three; an absent field stays as it is, null clears a filter. */
export class SetNotifyRequest {
  @ApiPropertyOptional({ example: true, description: 'true: push messages for new filings of this company; a JSON boolean' })
  // Absent is fine, null is not: a switch has no "cleared" state.
  @ValidateIf((request: SetNotifyRequest) => request.notify_enabled !== undefined)
  // No implicit conversion is configured, so "true" (a string) is refused here.
  @IsBoolean({ message: 'notify_enabled must be a boolean (true or false)' })
  notify_enabled?: boolean;

  @ApiPropertyOptional({
    enum: REPORT_TYPES,
    isArray: true,
    nullable: true,
    example: ['major_event', 'periodic'],
    description: CATEGORIES_DESCRIPTION,
  })
  @IsOptional()
  @IsArray({ message: 'categories must be an array of categories, or null' })
  @ArrayNotEmpty({ message: 'categories must name at least one category (null: every category)' })
  @ArrayUnique({ message: 'categories must not repeat a category' })
  @IsIn(REPORT_TYPES, { each: true, message: `each of categories must be one of ${REPORT_TYPES.join(', ')}` })
  categories?: ReportType[] | null;

  @ApiPropertyOptional({ enum: [...IMPACT_LEVELS].reverse(), nullable: true, example: 'medium', description: MIN_IMPACT_DESCRIPTION })
  @IsOptional()
  @IsIn(IMPACT_LEVELS, { message: 'min_impact must be low, medium or high, or null' })
  min_impact?: ImpactLevel | null;
}

/**
 * The OpenAPI mirror of `WatchEntry`: `implements` holds it to the service's answer,
 * and the controller returning one as the other holds the reverse.
 */
export class WatchEntryView implements WatchEntry {
  @ApiProperty({ example: 17 })
  id: number;

  @ApiProperty({ example: 42 })
  user_id: number;

  @ApiProperty({ example: '00126380' })
  corp_code: string;

  @ApiProperty({ example: '삼성전자', description: 'Copied from the stock master when the entry was added' })
  corp_name: string;

  @ApiProperty({ type: String, nullable: true, example: '005930', description: 'Copied from the stock master when the entry was added' })
  stock_code: string | null;

  @ApiProperty({ example: true, description: 'Push messages for new filings of this company' })
  notify_enabled: boolean;

  @ApiProperty({
    enum: REPORT_TYPES,
    isArray: true,
    nullable: true,
    example: ['major_event', 'periodic'],
    description: CATEGORIES_DESCRIPTION,
  })
  categories: ReportType[] | null;

  @ApiProperty({ enum: [...IMPACT_LEVELS].reverse(), nullable: true, example: 'medium', description: MIN_IMPACT_DESCRIPTION })
  min_impact: ImpactLevel | null;

  @ApiProperty({ example: '2026-11-18T03:00:00.000Z', description: 'RFC 3339, UTC' })
  created_at: string;
}

/** The OpenAPI mirror of `WatchlistCapacity`, held to it like `WatchEntryView`. */
export class WatchlistCapacityResponse implements WatchlistCapacity {
  @ApiProperty({ example: 3, description: 'By the active tier: 3 (none), 30 (pro), 100 (max)' })
  capacity: number;

  @ApiProperty({ example: 2, description: 'Entries on the watchlist' })
  used: number;

  @ApiProperty({ example: 1, description: 'capacity - used, never below 0' })
  remaining: number;
}

/** The 409 of an add to a full watchlist. */
export class WatchlistFullErrorBody extends ErrorBody {
  @ApiProperty({ example: 3 })
  capacity: number;

  @ApiProperty({ example: 3 })
  used: number;
}
