import { AppError } from '../errors/app-error';
import { CorpCodePipe, MAX_INTEGER_ID, parsePositiveId, PositiveIdPipe, RceptNoPipe } from './path-parameter.pipes';

describe('RceptNoPipe', () => {
  it('passes 14 digits through', () => {
    expect(new RceptNoPipe().transform('20261120000123')).toBe('20261120000123');
  });

  it.each(['2026112000012', '202611200001234', '2026112000012a', ''])('refuses %j with 400 VALIDATION_FAILED', (value) => {
    expect(() => new RceptNoPipe().transform(value)).toThrow(new AppError('VALIDATION_FAILED', 'rceptNo must be 14 digits'));
  });
});

describe('CorpCodePipe', () => {
  it('passes 8 digits through', () => {
    expect(new CorpCodePipe().transform('00126380')).toBe('00126380');
  });

  it.each(['0012638', '001263800', '0012638x', ''])('refuses %j with 400 VALIDATION_FAILED', (value) => {
    expect(() => new CorpCodePipe().transform(value)).toThrow(new AppError('VALIDATION_FAILED', 'corpCode must be 8 digits'));
  });
});

describe('PositiveIdPipe', () => {
  const pipe = new PositiveIdPipe('userId');

  it.each([
    ['1', 1],
    ['42', 42],
    [String(MAX_INTEGER_ID), MAX_INTEGER_ID],
  ])('reads %j as %d', (value, id) => {
    expect(pipe.transform(value)).toBe(id);
  });

  it.each([
    '0x1', // hex, which Number() takes
    ' 1', // a space, which Number() and parseInt() take
    '1 ',
    '1e3', // an exponent
    '1.0',
    '1.',
    '+1',
    '-1',
    '-0',
    '0',
    '01', // one id, one spelling
    '00',
    '',
    '１', // a full-width digit
    '١', // an Arabic-Indic digit
    String(MAX_INTEGER_ID + 1),
    '9'.repeat(400),
    'Infinity',
    'NaN',
    '1_000',
  ])('refuses %j with 400 VALIDATION_FAILED', (value) => {
    expect(() => pipe.transform(value)).toThrow(
      new AppError('VALIDATION_FAILED', `userId must be an integer from 1 to ${MAX_INTEGER_ID}, in digits without a sign or leading zeros`),
    );
  });

  it('refuses what is not a string at all', () => {
    for (const value of [1, undefined, null, ['1']]) expect(() => pipe.transform(value)).toThrow(AppError);
  });

  it("keeps to the column's range it is given", () => {
    expect(parsePositiveId('99', 100)).toBe(99);
    expect(parsePositiveId('100', 100)).toBe(100);
    expect(parsePositiveId('101', 100)).toBeNull();
    expect(parsePositiveId('1000', 100)).toBeNull();
    expect(parsePositiveId(String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
