import { bearerTokenOf, sendsNoCredentials } from './bearer-token';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

describe('bearerTokenOf', () => {
  it('reads exactly one token after the Bearer scheme, in any letter case', () => {
    expect(bearerTokenOf(`Bearer ${JWT}`)).toBe(JWT);
    expect(bearerTokenOf(`bearer ${JWT}`)).toBe(JWT);
    expect(bearerTokenOf(`BEARER  ${JWT}`)).toBe(JWT);
    expect(bearerTokenOf('Bearer abc+/~-._=')).toBe('abc+/~-._=');
  });

  it('refuses anything else, notably a token followed by more words', () => {
    for (const header of [
      `Bearer ${JWT} x`,
      `Bearer ${JWT},Bearer ${JWT}`,
      `Bearer ${JWT} ${JWT}`,
      `Basic ${JWT}`,
      `Bearer`,
      `Bearer `,
      `${JWT}`,
      `Bearer "${JWT}"`,
      `Bearer ${JWT};`,
      `Bearer\u00a0${JWT}`,
      `Bearer ${JWT}\u0000`,
      '',
      undefined,
    ]) {
      expect({ header, token: bearerTokenOf(header) }).toEqual({ header, token: null });
    }
  });
});

describe('sendsNoCredentials', () => {
  it('is true only when the Authorization header is absent or empty', () => {
    expect(sendsNoCredentials({})).toBe(true);
    expect(sendsNoCredentials({ authorization: '' })).toBe(true);
    expect(sendsNoCredentials({ authorization: `Bearer ${JWT} x` })).toBe(false);
    expect(sendsNoCredentials({ authorization: 'Bearer' })).toBe(false);
  });
});
