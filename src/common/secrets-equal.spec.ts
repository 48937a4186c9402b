import { secretsEqual } from './secrets-equal';

describe('secretsEqual', () => {
  it('accepts only the identical secret', () => {
    const expected = 'a-shared-secret-of-at-least-32-characters';
    expect(secretsEqual(expected, expected)).toBe(true);
    expect(secretsEqual(`${expected}x`, expected)).toBe(false);
    expect(secretsEqual(expected.slice(0, -1), expected)).toBe(false);
    expect(secretsEqual(expected.toUpperCase(), expected)).toBe(false);
    expect(secretsEqual('', expected)).toBe(false);
    expect(secretsEqual('', '')).toBe(true);
  });

  it('compares multi-byte text by its UTF-8 bytes', () => {
    expect(secretsEqual('비밀-키', '비밀-키')).toBe(true);
    expect(secretsEqual('비밀-키', '비밀-카')).toBe(false);
  });

  it('compares inputs of any length without throwing (both sides become digests of one size)', () => {
    for (const presented of ['', 'x', 'the-expected-secre', 'the-expected-secret!', 'y'.repeat(100_000)]) {
      expect(secretsEqual(presented, 'the-expected-secret')).toBe(false);
    }
  });
});
