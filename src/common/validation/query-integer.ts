import { Transform } from 'class-transformer';

/** An integer as a query parameter may write it: decimal digits, a minus for a negative one, no leading zero. */
const QUERY_INTEGER = /^(0|-?[1-9][0-9]{0,14})$/;

/**
 * A query parameter read as an integer only when it is written as one: `12` is 12, while `0x10`,
 * ` 5`, `1e3`, `1.0`, `+1`, `01` and an empty value stay strings, for `@IsInt()` to refuse with 400
 * (`@Type(() => Number)` turns all of those into numbers, the empty one into 0). A minus is read, so
 * that `-1` is refused by the field's own `@Min` message. The range is the field's `@Min`/`@Max`.
 */
export function QueryInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && QUERY_INTEGER.test(value) ? Number(value) : value));
}
