import { loadConfig } from '../config/app-config';
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
  it('finds every secret of the configuration, the database password and inline service-account keys', () => {
    const serviceAccount = JSON.stringify({
      client_email: 'a@b.c',
      private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
    });
    const config = loadConfig({
      JWT_SECRET: 'j'.repeat(32),
      ADMIN_KEY: 'admin-key-value',
      WEB_SECRET: 'web-secret-value',
      DART_API_KEY: 'dart-key-value',
      OPENAI_API_KEY: 'openai-key-value',
      ANTHROPIC_API_KEY: 'anthropic-key-value',
      GOOGLE_PUBSUB_SHARED_SECRET: 'pubsub-secret-value',
      FIREBASE_SERVICE_ACCOUNT: serviceAccount,
      DATABASE_URL: 'postgres://app:db%2Fpassword@db.example/app',
    });
    expect(secretsOf(config)).toEqual(
      expect.arrayContaining([
        'j'.repeat(32),
        'admin-key-value',
        'web-secret-value',
        'dart-key-value',
        'openai-key-value',
        'anthropic-key-value',
        'pubsub-secret-value',
        serviceAccount,
        '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
        'db/password',
      ]),
    );
    expect(secretsOf(config)).not.toContain('https://opendart.fss.or.kr/api');
  });
});
