import { AppError } from '../errors/app-error';
import { CorpCodePipe, RceptNoPipe } from './path-parameter.pipes';

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
