import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Expose, Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches } from 'class-validator';

/** A route's `limit`: what a request without one gets, and the most it may ask for. The least is always 1. */
export interface LimitRange {
  readonly fallback: number;
  readonly max: number;
}

/** The least rows any `limit` asks for. */
export const MIN_LIMIT = 1;

/** An integer as a query string writes it: decimal digits, with an optional sign. */
const DECIMAL_INTEGER = /^[+-]?\d+$/;

/**
 * The one rule for a `limit` (docs/request-pipeline.md, "Limits outside their range"): absent, the
 * route's default; an integer, clamped into 1..max (0 and -1 give 1, 101 gives the maximum); anything
 * else (`abc`, `2.5`, `1e3`, an empty or a repeated `limit`) comes back as it came, for validation
 * to refuse with 400.
 */
export function limitWithin(raw: unknown, range: LimitRange): unknown {
  if (raw === undefined) return range.fallback;
  const value = typeof raw === 'string' && DECIMAL_INTEGER.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value)) return raw;
  return Math.min(range.max, Math.max(MIN_LIMIT, value));
}

/**
 * The `limit` of a list query, one decorator for every route that has one: the handler reads
 * the number of rows to answer, the rule of `limitWithin` applied. `range` is the route's, or
 * chosen from the rest of the query when the route has several (then `description` says them).
 */
export function PagingLimit(range: LimitRange | ((query: Record<string, unknown>) => LimitRange), description?: string): PropertyDecorator {
  const rangeOf = typeof range === 'function' ? range : () => range;
  const documented = typeof range === 'function' ? {} : { default: range.fallback, maximum: range.max };
  const said =
    description ??
    (typeof range === 'function'
      ? 'Clamped to the range of the route'
      : `Default ${range.fallback}; clamped to ${MIN_LIMIT}..${range.max}`);
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: MIN_LIMIT, ...documented, description: `${said}; not an integer: 400` }),
    // Exposed, so that the transformation also runs when the query has no `limit` (it gives the default).
    Expose(),
    Transform(({ value, obj }: { value: unknown; obj: Record<string, unknown> }) => limitWithin(value, rangeOf(obj))),
    IsInt({ message: 'limit must be an integer' }),
  );
}

/** The feeds of a signed-in caller ordered by filing (the watched filings, the push history): 20 by default, at most 50. */
export const RECEIPT_FEED_LIMITS: LimitRange = { fallback: 20, max: 50 };

/** A page of a feed ordered by filing: `limit`, and `before`, the last rcept_no of the previous page. */
export class ReceiptCursorQuery {
  @PagingLimit(RECEIPT_FEED_LIMITS)
  limit: number;

  @ApiPropertyOptional({ example: '20261121000123', description: 'Continue after this filing (the last rcept_no of the previous page)' })
  @IsOptional()
  @Matches(/^\d{14}$/, { message: 'before must be a rcept_no of 14 digits' })
  before?: string;
}
