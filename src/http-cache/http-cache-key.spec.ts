import { httpCacheKey } from './http-cache-key';

describe('httpCacheKey', () => {
  it('sorts parameters by name and keeps repeated values in their order', () => {
    expect(httpCacheKey('/api/v1/disclosures?b=2&a=1&tag=y&c=3&tag=x')).toBe('/api/v1/disclosures?a=1&b=2&c=3&tag=y&tag=x');
  });

  it('spells encodings one way', () => {
    const key = httpCacheKey('/api/v1/stocks/search?q=%EC%82%BC%EC%84%B1+%EC%A0%84%EC%9E%90');
    expect(httpCacheKey('/api/v1/stocks/search?q=삼성 전자')).toBe(key);
    expect(httpCacheKey('/api/v1/stocks/search?q=%ec%82%bc%ec%84%b1%20%ec%a0%84%ec%9e%90')).toBe(key);
    expect(httpCacheKey('/api/v1/stocks/search?%71=삼성%20전자')).toBe(key);
  });

  it('tells an empty value from an absent parameter', () => {
    expect(httpCacheKey('/x?q=')).toBe('/x?q=');
    expect(httpCacheKey('/x?q')).toBe('/x?q=');
    expect(httpCacheKey('/x')).toBe('/x');
    expect(httpCacheKey('/x?')).toBe('/x');
  });

  it('keeps values that differ apart, including an encoded separator', () => {
    expect(httpCacheKey('/x?q=a%26b')).not.toBe(httpCacheKey('/x?q=a&b'));
    expect(httpCacheKey('/x?q=a%2Bb')).not.toBe(httpCacheKey('/x?q=a+b'));
    expect(httpCacheKey('/x?q=A')).not.toBe(httpCacheKey('/x?q=a'));
  });

  it('decodes path segments as routing does, without merging segments', () => {
    expect(httpCacheKey('/api/v1/companies/%30%30126380')).toBe('/api/v1/companies/00126380');
    expect(httpCacheKey('/a/b%2Fc')).not.toBe(httpCacheKey('/a/b/c'));
    expect(httpCacheKey('/a/%E0%A4%A')).toBe('/a/%E0%A4%A');
  });
});
