import { redactQuerySecrets } from './root-logger';

describe('redactQuerySecrets', () => {
  it('hides credential-carrying query values and keeps everything else', () => {
    expect(redactQuerySecrets('/internal/store-b-notifications?token=s3cr3t&x=1')).toBe(
      '/internal/store-b-notifications?token=[redacted]&x=1',
    );
    expect(redactQuerySecrets('/api/v1/adnet/ssv?ad_unit=1&user_id=7&signature=MEUC&key_id=3')).toBe(
      '/api/v1/adnet/ssv?ad_unit=1&user_id=7&signature=[redacted]&key_id=3',
    );
    expect(redactQuerySecrets('/api/v1/stocks/search?query=token')).toBe('/api/v1/stocks/search?query=token');
  });
});
