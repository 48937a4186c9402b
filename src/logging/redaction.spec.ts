import { REDACTED, Redactor, secretsOf } from './redaction';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
const FCM = 'cXk1bWp0Z2RzQ0E:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx';

describe('Redactor', () => {
  const redactor = new Redactor();
  redactor.addSecrets(['configured-secret-value-123', 'short', undefined]);

  it('removes configured secrets wherever they appear, as is, JSON-escaped or URL-encoded', () => {
    expect(redactor.redact('failed: configured-secret-value-123 in a message')).toBe(`failed: ${REDACTED} in a message`);
    expect(redactor.redact('/x?v=configured-secret-value-123')).toBe(`/x?v=${REDACTED}`);
    expect(redactor.redact('short stays')).toBe('short stays');
  });

  it('removes credentials named like credentials in URLs, keeping every other parameter', () => {
    expect(redactor.redact('/internal/store-b-notifications?token=s3cr3t&x=1')).toBe(
      `/internal/store-b-notifications?token=${REDACTED}&x=1`,
    );
    expect(redactor.redact('/api/v1/push/fcm-token?fcm_token=abc&platform=ios')).toBe(
      `/api/v1/push/fcm-token?fcm_token=${REDACTED}&platform=ios`,
    );
    expect(redactor.redact('GET https://opendart.fss.or.kr/api/list.json?crtfc_key=0123abcd&page_no=1 failed')).toBe(
      `GET https://opendart.fss.or.kr/api/list.json?crtfc_key=${REDACTED}&page_no=1 failed`,
    );
    expect(redactor.redact('/api/v1/adnet/ssv?ad_unit=1&signature=MEUC&user_id=7')).toBe(
      `/api/v1/adnet/ssv?ad_unit=1&signature=${REDACTED}&user_id=7`,
    );
    expect(redactor.redact('/api/v1/stocks/search?query=token')).toBe('/api/v1/stocks/search?query=token');
  });

  it('removes JSON fields named like credentials (headers, error properties)', () => {
    expect(redactor.redact('{"headers":{"Authorization":"Token abc","x-admin-key":"k\\"ey","accept":"json"}}')).toBe(
      `{"headers":{"Authorization":"${REDACTED}","x-admin-key":"${REDACTED}","accept":"json"}}`,
    );
  });

  it('removes credentials recognisable by their shape: bearer and basic, JWTs, FCM tokens, private keys', () => {
    expect(redactor.redact('Authorization: Bearer ya29.a0AfH6SMB')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactor.redact('basic dXNlcjpwYXNz')).toBe(`basic ${REDACTED}`);
    expect(redactor.redact(`token ${JWT} refused`)).toBe(`token ${REDACTED} refused`);
    expect(redactor.redact(`sending to ${FCM}`)).toBe(`sending to ${REDACTED}`);
    expect(redactor.redact('"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n"')).toBe(`"${REDACTED}\\n"`);
  });
});

describe('secretsOf', () => {
  it('finds the values of fields named like secrets at any depth, inline service-account keys and the database password', () => {
    const serviceAccount = JSON.stringify({ client_email: 'a@b.c', private_key: 'the-private-key' });
    const config = {
      jwt: { secret: 'jwt-secret-value', expirationMs: 1000 },
      adminKey: 'admin-key-value',
      firebaseServiceAccount: serviceAccount,
      databaseUrl: 'postgres://app:db%2Fpassword@db.example/app',
      dart: { baseUrl: 'https://opendart.fss.or.kr/api' },
    };
    expect(secretsOf(config)).toEqual(
      expect.arrayContaining(['jwt-secret-value', 'admin-key-value', serviceAccount, 'the-private-key', 'db/password']),
    );
    expect(secretsOf(config)).not.toContain('https://opendart.fss.or.kr/api');
  });
});
