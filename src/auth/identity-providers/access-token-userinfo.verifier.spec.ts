import { accountOf } from './access-token-userinfo.verifier';

describe('accountOf (the account a user-info body names)', () => {
  it('keeps a 64-bit id digit for digit, so neighbours that round to one double stay apart', () => {
    const one = accountOf('{"id":1376016924426814086,"properties":{"nickname":"Kevin \\"Test\\""}}');
    const neighbour = accountOf('{"id":1376016924426814087,"properties":{"nickname":"Kevin \\"Test\\""}}');
    expect(one).toEqual({ id: '1376016924426814086' });
    expect(neighbour).toEqual({ id: '1376016924426814087' });
    expect(Number('1376016924426814086')).toBe(Number('1376016924426814087'));
  });

  it('takes a string id as it is, and the same digits as a number or a string name one account', () => {
    expect(accountOf('{"id":"sandbox-alice"}')).toEqual({ id: 'sandbox-alice' });
    expect(accountOf('{"id":"123"}')).toEqual(accountOf('{"id":123}'));
    expect(accountOf('{"id":"a\\u002db"}')).toEqual({ id: 'a-b' });
  });

  it('reads only the top-level id', () => {
    expect(accountOf('{"kakao_account":{"id":1},"id":2}')).toEqual({ id: '2' });
    expect(accountOf('{"kakao_account":{"id":1}}')).toEqual({ problem: 'no id' });
  });

  it('refuses a duplicated id rather than guess which one the provider meant', () => {
    expect(accountOf('{"id":1,"id":2}')).toEqual({ problem: '2 ids' });
    expect(accountOf('{"id":1,"\\u0069d":1}')).toEqual({ problem: '2 ids' });
  });

  it.each([
    ['negative', '-1'],
    ['minus zero', '-0'],
    ['a fraction', '1376016924426814086.0'],
    ['an exponent', '1.376016924426814086e18'],
    ['a capital exponent', '1E3'],
    ['true', 'true'],
    ['null', 'null'],
    ['an object', '{"value":1}'],
    ['an array', '[1]'],
    ['an empty string', '""'],
    ['a string with a space', '"a b"'],
    ['a string of 256 characters', `"${'a'.repeat(256)}"`],
    ['a number of 256 digits', `1${'0'.repeat(255)}`],
  ])('refuses an id that is %s', (_case, written) => {
    expect(accountOf(`{"id":${written}}`)).toEqual({ problem: expect.any(String) });
  });

  it.each([
    ['not JSON', '<html>502 Bad Gateway</html>'],
    ['empty', ''],
    ['an array', '[{"id":1}]'],
    ['a bare number', '1376016924426814086'],
  ])('refuses a body that is %s', (_case, body) => {
    expect(accountOf(body)).toEqual({ problem: 'a body that is not a JSON object' });
  });

  it('accepts the longest ids the subject column holds', () => {
    expect(accountOf(`{"id":1${'0'.repeat(254)}}`)).toEqual({ id: `1${'0'.repeat(254)}` });
    expect(accountOf(`{"id":"${'a'.repeat(255)}"}`)).toEqual({ id: 'a'.repeat(255) });
    expect(accountOf('{"id":0}')).toEqual({ id: '0' });
  });
});
