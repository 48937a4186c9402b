import { JwtService } from '@nestjs/jwt';
import request from 'supertest';
import { type ServiceTokenClaims, ServiceTokenService } from '../../src/auth/service-token.service';
import type { HttpDouble } from '../support/http-double';
import { startUserInfoDouble } from '../support/identity-provider-doubles';
import { RELAXED_RATE_LIMITS, startTestApp, TEST_JWT_SECRET, type TestApp } from '../support/test-app';

/** The secret before the rotation, now JWT_SECRET_PREVIOUS. */
const PREVIOUS_SECRET = 'the-signing-secret-before-the-rotation-0123456789';
/** A secret this service never had. */
const UNKNOWN_SECRET = 'a-signing-secret-this-service-never-had-0123456789';
/** A filing that does not exist: an optional-JWT route answers 404 once its guard let the caller through. */
const UNKNOWN_FILING = '20260101999999';

describe('rotating the JWT secret: JWT_SECRET_PREVIOUS verifies, JWT_SECRET signs', () => {
  let userInfo: HttpDouble & { userinfoUrl: string };
  let t: TestApp;

  beforeAll(async () => {
    userInfo = await startUserInfoDouble();
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      env: { IDP1_USERINFO_URL: userInfo.userinfoUrl, JWT_SECRET_PREVIOUS: PREVIOUS_SECRET },
    });
  });

  afterAll(async () => {
    await t?.close();
    await userInfo?.close();
  });

  const signIn = async (account: string): Promise<string> =>
    (await request(t.http).post('/api/v1/auth/idp1/token').send({ access_token: account }).expect(200)).body.token as string;
  const claimsOf = (token: string): ServiceTokenClaims => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
  /** The same claims, signed with another secret (HS256, as the service signs). */
  const resigned = (token: string, secret: string, claims: Partial<ServiceTokenClaims> = {}) =>
    t.app.get(JwtService).sign({ ...claimsOf(token), ...claims }, { secret });
  const me = (token: string) => request(t.http).get('/api/v1/auth/me').set('Authorization', `Bearer ${token}`);
  const analysisRead = (token: string) =>
    request(t.http).get(`/api/v1/ai/analyze/${UNKNOWN_FILING}`).set('Authorization', `Bearer ${token}`);

  it('signs every new token with JWT_SECRET, never with the previous secret', async () => {
    const token = await signIn('user-7001');
    const jwt = t.app.get(JwtService);
    expect(jwt.verify(token, { secret: TEST_JWT_SECRET })).toMatchObject({ sub: claimsOf(token).sub });
    expect(() => jwt.verify(token, { secret: PREVIOUS_SECRET })).toThrow(/invalid signature/);
    await me(token).expect(200);
  });

  it('accepts a token the previous secret signed, on JWT and optional-JWT routes, as its user', async () => {
    const token = await signIn('user-7002');
    const userId = Number(claimsOf(token).sub);
    const old = resigned(token, PREVIOUS_SECRET);

    expect((await me(old).expect(200)).body.user_id).toBe(userId);
    expect((await analysisRead(old).expect(404)).body).toMatchObject({ code: 'NOT_FOUND' });
    // The rate limiter keys it by its user too, as it does a current token.
    expect(t.app.get(ServiceTokenService).userIdOf(old)).toBe(userId);
  });

  it('answers 401 to a token signed with any other secret', async () => {
    const token = await signIn('user-7003');
    const forged = resigned(token, UNKNOWN_SECRET);

    expect((await me(forged).expect(401)).body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    expect((await analysisRead(forged).expect(401)).body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    expect(t.app.get(ServiceTokenService).userIdOf(forged)).toBeNull();
  });

  it('still refuses an expired token of the previous secret', async () => {
    const token = await signIn('user-7004');
    const nowS = Math.floor(t.clock.nowMs() / 1000);
    const expired = resigned(token, PREVIOUS_SECRET, { iat: nowS - 7200, exp: nowS - 60 });

    expect((await me(expired).expect(401)).body).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(t.app.get(ServiceTokenService).userIdOf(expired)).toBeNull();
  });
});
