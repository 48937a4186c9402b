import { Writable } from 'node:stream';
import request, { type Response } from 'supertest';
import { createRootLogger } from '../../src/logging/root-logger';
import { startHttpDouble } from '../support/http-double';
import {
  KAKAO_64_BIT_ID,
  KAKAO_64_BIT_NEIGHBOUR_ID,
  type KeySetAnswer,
  type OidcDouble,
  startOidcDouble,
  startUserInfoDouble,
} from '../support/identity-provider-doubles';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/** The verifiers wait 5 s for a provider; a test of that waits a little longer. */
const PROVIDER_TIMEOUT_TEST_MS = 15_000;

/** A loopback URL nothing listens on, so connecting is refused at once. */
async function refusedUrl(path: string): Promise<string> {
  const closed = await startHttpDouble(() => undefined);
  await closed.close();
  return `${closed.url}${path}`;
}

/**
 * Sign-in against the identity providers as they really answer: Kakao's own SDK fixtures
 * (test/fixtures/real-identity/) served byte for byte, and providers that fail, throttle,
 * hang or refuse the connection. Only an explicit rejection is the caller's fault (401);
 * the rest is 503, and every refusal leaves one warning naming the provider and why.
 */
describe('sign-in as the identity providers really answer', () => {
  const log: Record<string, unknown>[] = [];
  const logger = createRootLogger(
    { appEnv: 'dev', logLevel: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) log.push(JSON.parse(line));
        done();
      },
    }),
  );
  let userInfo: Awaited<ReturnType<typeof startUserInfoDouble>>;
  let google: OidcDouble;
  let t: TestApp;

  beforeAll(async () => {
    userInfo = await startUserInfoDouble();
    google = await startOidcDouble('https://accounts.google.example', 'briefing-web.apps.example');
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      logger,
      env: {
        IDP1_USERINFO_URL: userInfo.userinfoUrl,
        IDP3_JWKS_URL: google.jwksUrl,
        IDP3_ISSUER: google.issuer,
        IDP3_AUDIENCE: google.audience,
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([userInfo?.close(), google?.close()]);
  });

  const signInIdp1 = (app: TestApp, accessToken: string) =>
    request(app.http).post('/api/v1/auth/idp1/token').send({ access_token: accessToken });
  const userIdOf = async (signIn: Response): Promise<number> =>
    (await request(t.http).get('/api/v1/auth/me').set('Authorization', `Bearer ${signIn.body.token}`).expect(200)).body.user_id;
  const identitiesOf = (userId: number) => t.dataSource.query('SELECT provider, subject FROM user_identities WHERE user_id = $1', [userId]);
  const userCount = async () => Number((await t.dataSource.query('SELECT count(*) AS n FROM users'))[0].n);
  /** What the verifiers warned while serving `answer` (the request log's own line aside). */
  const warningLinesOf = (answer: Response) =>
    log.filter((line) => line.reqId === answer.headers['x-request-id'] && line.level === 'warn' && line.msg !== 'request completed');
  const warningsOf = (answer: Response) => warningLinesOf(answer).map((line) => line.msg);
  const userInfoHost = () => new URL(userInfo.userinfoUrl).host;

  const expectErrorBody = (answer: Response, status: number, code: string) => {
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ statusCode: status, error: expect.any(String), message: expect.any(String), code });
  };

  describe('the first provider (Kakao user-info)', () => {
    it("signs in Kakao's 64-bit id as written, and finds the same user at the next sign-in", async () => {
      const before = await userCount();
      const first = await signInIdp1(t, 'kakao-me-2019').expect(200);
      const again = await signInIdp1(t, 'kakao-me-2019').expect(200);
      const userId = await userIdOf(first);
      expect(await userIdOf(again)).toBe(userId);
      expect(await userCount()).toBe(before + 1);
      expect(await identitiesOf(userId)).toEqual([{ provider: 'idp1', subject: KAKAO_64_BIT_ID }]);
    });

    it('keeps the neighbouring id, which is the same JavaScript number, another user', async () => {
      expect(Number(KAKAO_64_BIT_NEIGHBOUR_ID)).toBe(Number(KAKAO_64_BIT_ID));
      const kevin = await userIdOf(await signInIdp1(t, 'kakao-me-2019').expect(200));
      const neighbour = await userIdOf(await signInIdp1(t, 'kakao-me-2019-neighbour').expect(200));
      expect(neighbour).not.toBe(kevin);
      expect(await identitiesOf(neighbour)).toEqual([{ provider: 'idp1', subject: KAKAO_64_BIT_NEIGHBOUR_ID }]);
      expect(await userIdOf(await signInIdp1(t, 'kakao-me-2019-neighbour').expect(200))).toBe(neighbour);
    });

    it("answers 401 IDENTITY_REJECTED to Kakao's explicit rejection, with one warning that names the provider", async () => {
      const before = await userCount();
      const answer = await signInIdp1(t, 'an-unknown-access-token');
      expectErrorBody(answer, 401, 'IDENTITY_REJECTED');
      expect(warningsOf(answer)).toEqual([`${userInfoHost()} user-info answered 401: sign-in refused with IDENTITY_REJECTED`]);
      expect(await userCount()).toBe(before);
    });

    it.each([
      ["Kakao's internal error (500, empty body)", 'server-error', 'answered 500'],
      ['throttling (429)', 'rate-limited', 'answered 429'],
      ['a 200 without an id', 'broken-body', 'answered 200 with no id'],
    ])('answers 503 IDENTITY_UNAVAILABLE to %s, creating no user', async (_case, accessToken, reason) => {
      const before = await userCount();
      const answer = await signInIdp1(t, accessToken);
      expectErrorBody(answer, 503, 'IDENTITY_UNAVAILABLE');
      expect(warningsOf(answer)).toEqual([`${userInfoHost()} user-info ${reason}: sign-in refused with IDENTITY_UNAVAILABLE`]);
      expect(await userCount()).toBe(before);
    });

    it(
      'answers 503 IDENTITY_UNAVAILABLE when the provider does not answer within 5 s',
      async () => {
        const answer = await signInIdp1(t, 'no-answer');
        expectErrorBody(answer, 503, 'IDENTITY_UNAVAILABLE');
        expect(warningsOf(answer)).toEqual([
          `${userInfoHost()} user-info gave no answer within 5000 ms: sign-in refused with IDENTITY_UNAVAILABLE`,
        ]);
      },
      PROVIDER_TIMEOUT_TEST_MS,
    );

    it('refuses a token that cannot travel in a header without asking the provider, and never logs it', async () => {
      const calls = userInfo.requests.length;
      const answer = await signInIdp1(t, 'secret-token\r\nX-Injected: yes');
      expectErrorBody(answer, 401, 'IDENTITY_REJECTED');
      expect(userInfo.requests.length).toBe(calls);
      expect(warningsOf(answer)).toEqual([
        `${userInfoHost()} user-info was not asked: the token has characters RFC 6750 does not allow: sign-in refused with IDENTITY_REJECTED`,
      ]);
      expect(JSON.stringify(log)).not.toContain('secret-token');
    });
  });

  // jose keeps a key set it fetched for 10 minutes, so the outages come before the keys do.
  describe('an OpenID provider whose key set is away (idp3)', () => {
    const signInIdp3 = (idToken: string) => request(t.http).post('/api/v1/auth/idp3/token').send({ id_token: idToken });
    const keysHost = () => new URL(google.jwksUrl).host;

    it.each([
      ['a 500', 500, 'answered 500'],
      ['a 503', 503, 'answered 503'],
      ['a 429', 429, 'answered 429'],
      ['a page that is not JSON', 'not-json', 'answered 200 with a body that is not JSON'],
      ['JSON that is not a key set', 'not-a-key-set', 'answered 200 with no key set'],
    ] as [string, KeySetAnswer, string][])(
      'answers 503 PROVIDER_UNAVAILABLE to %s, however good the token',
      async (_case, keySet, reason) => {
        google.keySet = keySet;
        const answer = await signInIdp3(await google.sign({ sub: 'google-outage' }));
        expectErrorBody(answer, 503, 'PROVIDER_UNAVAILABLE');
        expect(warningsOf(answer)).toEqual([`idp3 key set at ${keysHost()} ${reason}: sign-in refused with PROVIDER_UNAVAILABLE`]);
      },
    );

    it(
      'answers 503 PROVIDER_UNAVAILABLE when the key set does not come within 5 s',
      async () => {
        google.keySet = 'no-answer';
        const answer = await signInIdp3(await google.sign({ sub: 'google-outage' }));
        expectErrorBody(answer, 503, 'PROVIDER_UNAVAILABLE');
        expect(warningsOf(answer)).toEqual([
          `idp3 key set at ${keysHost()} gave no answer within 5000 ms: sign-in refused with PROVIDER_UNAVAILABLE`,
        ]);
      },
      PROVIDER_TIMEOUT_TEST_MS,
    );

    it('still answers 401 to a string that is not a token, during the outage', async () => {
      google.keySet = 503;
      const answer = await signInIdp3('not-a-jwt');
      expectErrorBody(answer, 401, 'IDENTITY_REJECTED');
      expect(warningsOf(answer)).toEqual([
        'idp3 identity token did not verify (ERR_JWS_INVALID: Invalid Compact JWS): sign-in refused with IDENTITY_REJECTED',
      ]);
    });

    it('signs the same token in once the keys are back, and a forged one is 401', async () => {
      google.keySet = 'published';
      await signInIdp3(await google.sign({ sub: 'google-outage' })).expect(200);
      const forged = await signInIdp3(await google.sign({ sub: 'google-outage' }, 'foreign'));
      expectErrorBody(forged, 401, 'IDENTITY_REJECTED');
      expect(warningsOf(forged)).toEqual([
        'idp3 identity token did not verify (ERR_JWS_SIGNATURE_VERIFICATION_FAILED: signature verification failed): sign-in refused with IDENTITY_REJECTED',
      ]);
    });
  });

  describe('providers that refuse the connection', () => {
    let away: TestApp;

    beforeAll(async () => {
      away = await startTestApp({
        database: t.database,
        rateLimits: RELAXED_RATE_LIMITS,
        logger,
        env: {
          IDP1_USERINFO_URL: await refusedUrl('/v2/user/me'),
          IDP2_JWKS_URL: await refusedUrl('/auth/keys'),
          IDP2_ISSUER: 'https://appleid.example',
          IDP2_AUDIENCE: 'com.example.briefing',
        },
      });
    });

    afterAll(() => away?.close());

    it('answers 503 IDENTITY_UNAVAILABLE when the user-info endpoint refuses the connection', async () => {
      const answer = await signInIdp1(away, 'kakao-me-2019');
      expectErrorBody(answer, 503, 'IDENTITY_UNAVAILABLE');
      const host = new URL(away.config.idp1.userinfoUrl).host;
      expect(warningsOf(answer)).toEqual([`${host} user-info is unreachable (ECONNREFUSED): sign-in refused with IDENTITY_UNAVAILABLE`]);
      // The error that left the provider unanswered is on the line, with its stack and cause.
      expect(warningLinesOf(answer)[0].err).toMatchObject({
        type: 'TypeError',
        message: expect.stringContaining('ECONNREFUSED'),
        stack: expect.stringContaining('\n    at '),
      });
    });

    it('answers 503 PROVIDER_UNAVAILABLE when the JWKS endpoint refuses the connection', async () => {
      const apple = await startOidcDouble('https://appleid.example', 'com.example.briefing');
      try {
        const answer = await request(away.http)
          .post('/api/v1/auth/idp2/token')
          .send({ id_token: await apple.sign({ sub: 'apple-away' }) });
        expectErrorBody(answer, 503, 'PROVIDER_UNAVAILABLE');
        const host = new URL(away.config.idp2.jwksUrl).host;
        expect(warningsOf(answer)).toEqual([
          `idp2 key set at ${host} is unreachable (ECONNREFUSED): sign-in refused with PROVIDER_UNAVAILABLE`,
        ]);
        expect(warningLinesOf(answer)[0].err).toMatchObject({
          type: 'KeySetUnavailable',
          message: expect.stringContaining('ECONNREFUSED'),
          stack: expect.stringContaining('caused by: TypeError: fetch failed'),
        });
      } finally {
        await apple.close();
      }
    });
  });
});
