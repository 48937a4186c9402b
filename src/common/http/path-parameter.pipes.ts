import { createParamDecorator, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError } from '../errors/app-error';

/** A filing's receipt number (`:rceptNo`): 14 digits, or 400 VALIDATION_FAILED. */
@Injectable()
export class RceptNoPipe implements PipeTransform<string, string> {
  transform(rceptNo: string): string {
    if (!/^\d{14}$/.test(rceptNo)) throw new AppError('VALIDATION_FAILED', 'rceptNo must be 14 digits');
    return rceptNo;
  }
}

/** A company's code in the disclosure system (`:corpCode`): 8 digits, or 400 VALIDATION_FAILED. */
@Injectable()
export class CorpCodePipe implements PipeTransform<string, string> {
  transform(corpCode: string): string {
    if (!/^\d{8}$/.test(corpCode)) throw new AppError('VALIDATION_FAILED', 'corpCode must be 8 digits');
    return corpCode;
  }
}

/** The largest value of a PostgreSQL `integer` column (`users.id` and every other serial id here). */
export const MAX_INTEGER_ID = 2 ** 31 - 1;

/**
 * The one spelling of a positive id: decimal digits without a sign, spaces, exponent, fraction,
 * hex prefix or leading zero. `Number()` and `parseInt()` take all of those (`0x1`, ` 1`, `1e3`,
 * `1.0`); a leading zero is refused too, so one row has one URL (one cache key, one line in the logs).
 */
const CANONICAL_ID = /^[1-9][0-9]*$/;

/** `text` as a positive id not above `max`, or null when it is anything else. */
export function parsePositiveId(text: unknown, max = MAX_INTEGER_ID): number | null {
  // The length check first: a thousand digits never reach Number().
  if (typeof text !== 'string' || text.length > String(max).length || !CANONICAL_ID.test(text)) return null;
  const id = Number(text);
  return id <= max ? id : null;
}

/**
 * A numeric id as written in the path: a positive integer within its column's range (`integer`
 * by default), written as plain digits; anything else is 400 VALIDATION_FAILED, before any query
 * runs. Applied by `@PositiveIdParam`, which hands it the raw text.
 */
@Injectable()
export class PositiveIdPipe implements PipeTransform<unknown, number> {
  constructor(
    private readonly name: string,
    /** The column's largest value; at most Number.MAX_SAFE_INTEGER (a wider bigint id would stay a string). */
    private readonly max = MAX_INTEGER_ID,
  ) {}

  transform(value: unknown): number {
    const id = parsePositiveId(value, this.max);
    if (id === null) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${this.name} must be an integer from 1 to ${this.max}, in digits without a sign or leading zeros`,
      );
    }
    return id;
  }
}

/** The path segment `name` exactly as the request wrote it (decoded), untouched by the global validation pipe. */
const RawPathParam = createParamDecorator(
  (name: string, context: ExecutionContext) => context.switchToHttp().getRequest<Request>().params[name],
);

/**
 * `@PositiveIdParam('userId') userId: number`: a numeric id of the path, parsed strictly by
 * PositiveIdPipe and documented as an integer in its range. Every route that takes a numeric id
 * uses it. Not `@Param(name, ParseIntPipe)`: with `transform` on, the global validation pipe first
 * turns a parameter typed `number` into `+text`, and `+'0x1'`, `+' 1'` and `+'1e3'` are numbers.
 */
export function PositiveIdParam(name: string, max = MAX_INTEGER_ID): ParameterDecorator {
  const read = RawPathParam(name, new PositiveIdPipe(name, max));
  const documented = ApiParam({
    name,
    schema: { type: 'integer', minimum: 1, maximum: max },
    description: 'Digits only: no sign, spaces or leading zeros',
  });
  return (target, key, index) => {
    read(target, key, index);
    if (key !== undefined) documented(target, key, Object.getOwnPropertyDescriptor(target, key)!);
  };
}
