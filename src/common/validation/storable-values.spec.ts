import { findUnstorableText, MAX_BODY_DEPTH, nestsDeeperThan } from './storable-values';

describe('nestsDeeperThan', () => {
  const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);

  it('counts each array or object as one level; scalars add none', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan({ a: 1 }, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [1] }, 1)).toBe(true);
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
  });

  it('finds the deep branch among shallow siblings', () => {
    expect(nestsDeeperThan({ a: 1, b: { c: 2 }, d: [[[[1]]]] }, 4)).toBe(true);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(nestsDeeperThan(deep, MAX_BODY_DEPTH)).toBe(true);
  });
});

describe('findUnstorableText', () => {
  it('accepts ordinary text, emoji (paired surrogates) and U+FFFD', () => {
    expect(findUnstorableText({ name: '삼성전자 😀 \ufffd', list: ['a', 1, null, true] }, '')).toBeNull();
  });

  it('names the field holding a NUL or an unpaired surrogate, at any depth', () => {
    expect(findUnstorableText('a\0b', 'query')).toBe('query');
    expect(findUnstorableText({ token: '\ud800x' }, '')).toBe('token');
    expect(findUnstorableText({ a: { b: ['ok', 'x\udc00'] } }, '')).toBe('a.b.1');
  });

  it('checks keys as well as values', () => {
    expect(findUnstorableText({ 'bad\0key': 1 }, 'body')).toBe('body.bad\0key');
  });
});
