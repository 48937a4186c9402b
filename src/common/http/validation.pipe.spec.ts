import type { ArgumentMetadata, ValidationError } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Min, MinLength, ValidateNested } from 'class-validator';
import { AppError } from '../errors/app-error';
import { createValidationPipe, describeValidationErrors } from './validation.pipe';

class AddressDto {
  @IsString()
  @MinLength(2)
  city: string;
}

class CreateThingDto {
  @IsString()
  name: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  count?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => AddressDto)
  address?: AddressDto;
}

class ListQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  limit?: number;
}

/** Every field optional: an empty object is valid, so only the shape of the body can fail. */
class UpdateThingDto {
  @IsOptional()
  @IsString()
  name?: string;
}

/** Two constraints with one message, as the push preferences' times have. */
class TimeDto {
  @IsString({ message: 'at must be a time "HH:MM"' })
  @Matches(/^\d\d:\d\d$/, { message: 'at must be a time "HH:MM"' })
  at: string;
}

const body: ArgumentMetadata = { type: 'body', metatype: CreateThingDto };

/** Runs the pipe and returns the AppError it rejects with; fails the test otherwise. */
async function rejectionOf(value: unknown, metadata: ArgumentMetadata = body): Promise<AppError> {
  const pipe = createValidationPipe();
  try {
    await pipe.transform(value, metadata);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('the pipe accepted the value');
}

describe('createValidationPipe', () => {
  it('accepts a valid body and returns a DTO instance', async () => {
    const result: unknown = await createValidationPipe().transform({ name: 'Samsung', count: 2 }, body);
    expect(result).toBeInstanceOf(CreateThingDto);
    expect(result).toEqual({ name: 'Samsung', count: 2 });
  });

  it('strips properties the DTO does not declare', async () => {
    const result = (await createValidationPipe().transform(
      { name: 'Samsung', isAdmin: true, address: { city: 'Seoul', zip: '04524' } },
      body,
    )) as Record<string, unknown>;

    expect(result).not.toHaveProperty('isAdmin');
    expect(result.address).not.toHaveProperty('zip');
    expect(result).toEqual({ name: 'Samsung', address: { city: 'Seoul' } });
  });

  it('rejects a missing required field with VALIDATION_FAILED naming the field', async () => {
    const error = await rejectionOf({ count: 3 });

    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^name must be a string$/);
  });

  it('reports every field problem in one message', async () => {
    const error = await rejectionOf({ count: 0 });

    const lines = error.message.split('; ');
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(expect.arrayContaining(['name must be a string', 'count must not be less than 1']));
  });

  it('says a message once when two constraints of a field fail with the same words', async () => {
    const error = await rejectionOf({}, { type: 'body', metatype: TimeDto });

    expect(error.message).toBe('at must be a time "HH:MM"');
  });

  it('names nested fields with a dotted path', async () => {
    const error = await rejectionOf({ name: 'Samsung', address: { city: 'S' } });

    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe('address.city must be longer than or equal to 2 characters');
  });

  it('rejects an array body', async () => {
    const error = await rejectionOf([{ name: 'Samsung' }]);

    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.status).toBe(400);
  });

  it('rejects an array body even when every field is optional', async () => {
    const metadata: ArgumentMetadata = { type: 'body', metatype: UpdateThingDto };
    // The same DTO accepts an empty object, so the array is refused for its shape alone.
    await expect(createValidationPipe().transform({}, metadata)).resolves.toBeInstanceOf(UpdateThingDto);

    const error = await rejectionOf([], metadata);

    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe('body: Validation failed (object is expected)');
  });

  it('converts query strings to the declared types', async () => {
    const result = (await createValidationPipe().transform({ limit: '20' }, { type: 'query', metatype: ListQueryDto })) as ListQueryDto;
    expect(result.limit).toBe(20);
  });
});

describe('describeValidationErrors', () => {
  function error(property: string, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError {
    return { property, constraints, children } as ValidationError;
  }

  it('keeps messages that already start with the property name', () => {
    expect(describeValidationErrors([error('name', { isString: 'name must be a string' })])).toEqual(['name must be a string']);
  });

  it('prefixes other messages with "field: "', () => {
    expect(describeValidationErrors([error('name', { custom: 'Pick a shorter one' })])).toEqual(['name: Pick a shorter one']);
  });

  it('walks nested children with a dotted path', () => {
    const errors = [
      error('order', undefined, [
        error('items', undefined, [error('0', undefined, [error('qty', { min: 'qty must not be less than 1' })])]),
        error('note', { custom: 'Too rude' }),
      ]),
      error('name', { isString: 'name must be a string' }),
    ];

    expect(describeValidationErrors(errors)).toEqual([
      'order.items.0.qty must not be less than 1',
      'order.note: Too rude',
      'name must be a string',
    ]);
  });

  it('returns nothing for no errors', () => {
    expect(describeValidationErrors([])).toEqual([]);
  });
});

describe('createValidationPipe: text no column can store', () => {
  it.each<[unknown, ArgumentMetadata, string]>([
    [{ name: 'Sam\0sung' }, body, 'name'],
    [{ name: 'ok', address: { city: 'Se\ud800oul' } }, body, 'address.city'],
    [{ limit: '1\0' }, { type: 'query', metatype: ListQueryDto }, 'limit'],
    ['0012\0', { type: 'param', metatype: String, data: 'corpCode' }, 'corpCode'],
    [{ corpCode: '\udc00' }, { type: 'param', metatype: Object }, 'corpCode'],
  ])('refuses %j naming the field', async (value, metadata, field) => {
    const error = await rejectionOf(value, metadata);

    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe(`${field} must not contain NUL characters or unpaired UTF-16 surrogates`);
  });

  it('leaves custom parameters (the signed-in user) alone', async () => {
    const user = { note: '\0' };
    await expect(createValidationPipe().transform(user, { type: 'custom' })).resolves.toBe(user);
  });
});
