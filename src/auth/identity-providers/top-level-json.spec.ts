import fc from 'fast-check';
import { topLevelValueTexts } from './top-level-json';

describe('topLevelValueTexts', () => {
  it('keeps every digit of a number above 2^53, which JSON.parse rounds', () => {
    const body = '{"id": 1376016924426814086, "has_signed_up": true}';
    expect(topLevelValueTexts(body, 'id')).toEqual(['1376016924426814086']);
    expect(String(JSON.parse(body).id)).not.toBe('1376016924426814086');
  });

  it('gives a string value with its quotes and escapes, as written', () => {
    expect(topLevelValueTexts('{"id":"a\\"b\\\\","x":1}', 'id')).toEqual(['"a\\"b\\\\"']);
  });

  it('ignores an "id" inside nested objects and arrays, and inside strings', () => {
    const body = '{"properties":{"id":1,"list":[{"id":2},"}",["{"]]},"note":"\\"id\\": 3, }","tags":[],"id":4}';
    expect(topLevelValueTexts(body, 'id')).toEqual(['4']);
    expect(topLevelValueTexts('{"properties":{"id":1},"ids":[2]}', 'id')).toEqual([]);
  });

  it('skips strings whose escapes hide quotes, backslashes and brackets', () => {
    const body = String.raw`{"a":"\\","b":"\"}{[","c":"\u0022","id":5}`;
    expect(topLevelValueTexts(body, 'id')).toEqual(['5']);
  });

  it('compares keys after unescaping, as JSON.parse does', () => {
    expect(topLevelValueTexts('{"\\u0069d":7}', 'id')).toEqual(['7']);
    expect(topLevelValueTexts('{"id ":1,"ID":2,"i\\u0064":3,"\\u0069d\\u0000":4}', 'id')).toEqual(['3']);
  });

  it('lists a duplicated key once per occurrence, in order', () => {
    expect(topLevelValueTexts('{"id":1,"x":{"id":9},"id":"2"}', 'id')).toEqual(['1', '"2"']);
  });

  it('gives negative, fractional and exponent numbers and literals exactly as written', () => {
    for (const written of ['-1', '1.5', '1e3', '1E+3', '-0', 'true', 'null', '{"a":[1]}', '[1,{"b":2}]']) {
      expect(topLevelValueTexts(`{ "id" : ${written} }`, 'id')).toEqual([written]);
    }
  });

  it('accepts JSON white space anywhere between tokens', () => {
    expect(topLevelValueTexts(' \r\n\t{ \n"x" :\t[ 1 , 2 ] ,\r\n "id"\n:\n42\n}\n ', 'id')).toEqual(['42']);
    expect(topLevelValueTexts('{}', 'id')).toEqual([]);
  });

  it.each([
    ['an array', '[{"id":1}]'],
    ['a number', '1376016924426814086'],
    ['a string', '"{\\"id\\":1}"'],
    ['null', 'null'],
    ['not JSON', '{"id":1'],
    ['JSON with trailing text', '{"id":1} {"id":2}'],
    ['empty', ''],
  ])('refuses %s', (_case, text) => {
    expect(() => topLevelValueTexts(text, 'id')).toThrow(SyntaxError);
  });

  it('agrees with JSON.parse on every member of any JSON object', () => {
    const member = fc.tuple(fc.string(), fc.jsonValue());
    fc.assert(
      fc.property(fc.uniqueArray(member, { selector: ([key]) => key }), fc.constantFrom(undefined, 1, '\t'), (members, indent) => {
        // Written by hand: Object.fromEntries would turn a "__proto__" key into a prototype.
        const json = `{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value, null, indent)}`).join(',')}}`;
        for (const [key, value] of members) {
          expect(topLevelValueTexts(json, key).map((text) => JSON.parse(text))).toEqual([JSON.parse(JSON.stringify(value))]);
        }
      }),
      { seed: 26, numRuns: 300 },
    );
  });
});
