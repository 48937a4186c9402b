import { AppError } from '../errors/app-error';
import { createValidationPipe } from '../http/validation.pipe';
import { limitWithin, PagingLimit, ReceiptCursorQuery } from './paging';

/** A route with one range, and one whose range depends on the rest of the query (as GET /disclosures). */
class OneRangeQuery {
  @PagingLimit({ fallback: 10, max: 50 })
  limit: number;
}
class ModalQuery {
  @PagingLimit((query) => (query.mode === 'short' ? { fallback: 20, max: 20 } : { fallback: 50, max: 200 }), 'By mode')
  limit: number;
}

describe('limitWithin', () => {
  const range = { fallback: 10, max: 50 };

  it.each([
    [undefined, 10],
    ['1', 1],
    ['50', 50],
    ['0', 1],
    ['-1', 1],
    ['+7', 7],
    ['101', 50],
    ['99999999999999999999', 50],
    [0, 1],
    [75, 50],
  ])('gives %p → %p', (raw, limit) => {
    expect(limitWithin(raw, range)).toBe(limit);
  });

  it.each(['abc', '2.5', '1e3', '0x10', '', ' 5', '5 ', ['1', '2'], 2.5, null])('leaves %p as it came, for validation to refuse', (raw) => {
    expect(limitWithin(raw, range)).toBe(raw);
  });
});

/** Query DTOs with a `limit`, through the application's validation pipe (every route: test/e2e/paging-limits.e2e-spec.ts). */
describe.each([
  ['one range', OneRangeQuery, {}, 10, 50],
  ['a range chosen by the query', ModalQuery, {}, 50, 200],
  ['the other range chosen by the query', ModalQuery, { mode: 'short' }, 20, 20],
  ['ReceiptCursorQuery', ReceiptCursorQuery, {}, 20, 50],
] as const)('%s', (_name, metatype, query, fallback, max) => {
  const pipe = createValidationPipe();
  const limitOf = async (limit?: unknown) =>
    (
      (await pipe.transform(limit === undefined ? { ...query } : { ...query, limit }, { type: 'query', metatype, data: undefined })) as {
        limit: number;
      }
    ).limit;

  it(`gives ${fallback} without a limit and clamps into 1..${max}`, async () => {
    expect(await limitOf()).toBe(fallback);
    expect(await limitOf('1')).toBe(1);
    expect(await limitOf('0')).toBe(1);
    expect(await limitOf('-1')).toBe(1);
    expect(await limitOf('101')).toBe(Math.min(101, max));
    expect(await limitOf(String(max + 1))).toBe(max);
  });

  it.each(['abc', '2.5', '1e3', '', ['1', '2']])('refuses limit=%p with 400', async (limit) => {
    const refusal = await limitOf(limit).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'VALIDATION_FAILED', message: 'limit must be an integer' });
  });
});
