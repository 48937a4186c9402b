import fc from 'fast-check';
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

/**
 * The patterns as they were before the redaction was made linear (issue 28): each one searched
 * over the whole text, some scanning a run from every position of it. The new passes must
 * redact exactly what these did.
 */
const CREDENTIAL_NAME = String.raw`[\w.-]*(?:token|secret|signature|key|password|passwd|authorization|cookie|credential|session)[\w.-]*`;
const PREVIOUS_PATTERNS: [RegExp, string][] = [
  [new RegExp(String.raw`([?&;]${CREDENTIAL_NAME}=)[^&#\s"'\\]*`, 'gi'), `$1${REDACTED}`],
  [new RegExp(String.raw`("${CREDENTIAL_NAME}"\s*:\s*")(?:[^"\\]|\\.)*"`, 'gi'), `$1${REDACTED}"`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi, `$1 ${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  [/[A-Za-z0-9_-]{8,}:APA91[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, REDACTED],
];
const previousRedaction = (text: string) =>
  PREVIOUS_PATTERNS.reduce((result, [pattern, replacement]) => result.replace(pattern, replacement), text);

/** Pieces that make up the credentials and near misses of every pass, and what lies between them. */
const PIECES = [
  ...['?', '&', ';', '=', '#', '"', "'", '\\', ':', ' ', '\n', '\u2028', '.', '-', '_', '/', '+', '~', '{', '}', ',', '[', ']'],
  ...['a', 'Z', '0', '7', 'x1', 'abcdefgh', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'],
  ...['token', 'TOKEN', 'fcm_token', 'key', 'crtfc_key', 'x-admin-key', 'session', 'signature', 'query'],
  ...['Bearer', 'bearer', 'Basic', 'basic', 'Bearer ', 'Basic\t'],
  ...['eyJ', 'eyJhbGci', 'eyJzdWIiOiIx', 'c2lnbmF0dXJl', '-eyJ'],
  ...[':APA91', 'APA91', 'cXk1bWp0Z2RzQ0E', 'bHun4MxP5egoKMwt2KZFBaFUH-1RYqx'],
  ...['-----BEGIN ', '-----END ', 'PRIVATE KEY', 'RSA ', '-----', 'MIIE', '\\n'],
  // Whole credentials and their frames, so that the pieces often make one.
  ...['"token":"', '"x-admin-key" : "', '"a":"', '":"', '"fcm_token"', '?token=', '&crtfc_key=', `Bearer ${JWT}`, JWT, FCM],
  ...['eyJhbGciOiJIUzI1NiJ9', '.eyJzdWIiOiIxIn0', '.c2lnbmF0dXJl', 'bHun4MxP5egoKMwt2KZFBaFUH'],
  ...['-----BEGIN PRIVATE KEY-----', '-----END PRIVATE KEY-----', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----'],
  '-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----',
];

describe('Redactor: the same answers as the previous patterns', () => {
  const redactor = new Redactor();

  it('redacts every text made of credential pieces exactly as the previous patterns did', () => {
    // How many texts each previous pattern found something in: the comparison must not be empty.
    const found = PREVIOUS_PATTERNS.map(() => 0);
    const finders = PREVIOUS_PATTERNS.map(([pattern]) => new RegExp(pattern.source, pattern.flags.replace('g', '')));
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        finders.forEach((finder, index) => (found[index] += finder.test(text) ? 1 : 0));
        expect(redactor.redact(text)).toBe(previousRedaction(text));
      }),
      { numRuns: 20_000, seed: 28 },
    );
    for (const count of found) expect(count).toBeGreaterThan(200);
  });

  it('and any other text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (text) => {
        expect(redactor.redact(text)).toBe(previousRedaction(text));
      }),
      { numRuns: 5_000, seed: 28 },
    );
  });

  it('and real log lines', () => {
    const lines = [
      `{"level":30,"reqId":"r-1","req":{"method":"GET","url":"/api/v1/push/fcm-token?fcm_token=${FCM}&platform=ios"},"res":{"statusCode":204}}`,
      `{"level":50,"err":{"type":"Error","message":"GET https://opendart.fss.or.kr/api/list.json?crtfc_key=0123abcd&page_no=1 failed","stack":"Error: x\\n    at f (/app/x.js:1:2)"}}`,
      `{"headers":{"authorization":"Bearer ${JWT}","x-firebase-appcheck":"${JWT}","user-agent":"okhttp/4.12"},"msg":"request"}`,
      `{"config":{"private_key":"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----\\n","client_email":"a@b.c"}}`,
      `{"msg":"sending to ${FCM} and ${FCM}x","session":"s-1","sessionId":7}`,
    ];
    for (const line of lines) expect(redactor.redact(line)).toBe(previousRedaction(line));
  });
});

/**
 * Texts that made the previous patterns scan a run from each of its positions (time growing
 * with the square of the length). A million characters each: a redaction linear in the
 * length takes milliseconds, one that is quadratic would not end within the test's timeout.
 */
describe('Redactor: linear in the length of any text', () => {
  const redactor = new Redactor();
  redactor.addSecrets(['configured-secret-value-123']);
  const SIZE = 1_000_000;
  const repeat = (piece: string) => piece.repeat(Math.ceil(SIZE / piece.length)).slice(0, SIZE);

  it.each([
    ['a run of letters (FCM instance ids, query names)', repeat('a')],
    ['a URL of one long query name', `/x?${repeat('token')}`],
    ['query names that never reach =', repeat('&tokentoken')],
    ['a JSON field name that never closes', `{"${repeat('token')}`],
    ['a JSON value that never closes', `{"token":"${repeat('\\"')}`],
    ['JWT headers without a payload, each after a hyphen', repeat('-eyJabcd')],
    ['a JWT payload without a signature dot, full of JWT headers', `eyJabcd.${repeat('-eyJabcd')}`],
    ['FCM separators without a token after them', repeat('abcdefgh:APA91')],
    ['bearer schemes followed by white space only', repeat('Bearer        "')],
    ['private key BEGIN lines with no END line', repeat('-----BEGIN PRIVATE KEY-----x')],
    ['private key labels of capitals that never say PRIVATE KEY', repeat('-----BEGIN ABCDEFGHIJKLMNOP')],
    ['END lines that are not a private key', `-----BEGIN PRIVATE KEY-----${repeat('-----END RSA PUBLIC KEY-----')}`],
  ])('%s', (_name, text) => {
    expect(redactor.redact(text)).toHaveLength(text.length);
  });

  it('still redacts what follows a long run', () => {
    const text = `${repeat('a')}?token=${JWT} ${FCM}`;
    expect(redactor.redact(text)).toBe(`${repeat('a')}?token=${REDACTED} ${REDACTED}`);
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
