import { plainToInstance } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, validateSync } from 'class-validator';
import { QueryInteger } from './query-integer';

class Query {
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(0)
  @Max(60_000)
  delayMs: number = 300;
}

/** What the validation pipe does with a query: the transformation, then the checks. */
function read(query: Record<string, unknown>): { value: unknown; errors: string[] } {
  const instance = plainToInstance(Query, query);
  const errors = validateSync(instance).flatMap((error) => Object.values(error.constraints ?? {}));
  return { value: instance.delayMs, errors };
}

describe('QueryInteger', () => {
  it.each([
    ['0', 0],
    ['7', 7],
    ['60000', 60_000],
  ])('reads %j as %d', (text, value) => {
    expect(read({ delayMs: text })).toEqual({ value, errors: [] });
  });

  it('leaves the default when the parameter is absent', () => {
    expect(read({})).toEqual({ value: 300, errors: [] });
  });

  it.each(['0x10', ' 5', '5 ', '1e3', '1.0', '+1', '01', '-0', '', 'soon', 'Infinity', '１'])(
    'leaves %j as written, for @IsInt() to refuse',
    (text) => {
      const { value, errors } = read({ delayMs: text });
      expect(value).toBe(text);
      expect(errors).toContain('delayMs must be an integer number');
    },
  );

  it('reads a minus, so that the range says what is wrong', () => {
    expect(read({ delayMs: '-1' })).toEqual({ value: -1, errors: ['delayMs must not be less than 0'] });
  });

  it('leaves a repeated parameter (an array) for @IsInt() to refuse', () => {
    expect(read({ delayMs: ['1', '2'] }).errors).toContain('delayMs must be an integer number');
  });
});
