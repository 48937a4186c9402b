import request from 'supertest';
import { startUserInfoDouble } from '../support/identity-provider-doubles';
import type { HttpDouble } from '../support/http-double';
import { startTestApp, TEST_CLIENT_IP_HEADER, type TestApp } from '../support/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The specification's limits with their real numbers: non-GET requests 2/s with a
 * burst of 10 per user (or IP), `/api/v1/auth/*` 0.5/s with a burst of 5 per IP.
 * Every test uses its own client IPs so buckets never carry over between tests.
 */
describe('rate limits', () => {
  let userInfo: HttpDouble & { userinfoUrl: string };
  let t: TestApp;
  let nextIp = 1;
  const freshIp = () => `203.0.113.${nextIp++}`;

  beforeAll(async () => {
    userInfo = await startUserInfoDouble();
    t = await startTestApp({ env: { IDP1_USERINFO_URL: userInfo.userinfoUrl } });
  });

  afterAll(async () => {
    await t?.close();
    await userInfo?.close();
  });

  /** A mutating request outside /auth: the limiter answers before routing, so a 404 still counts. */
  const post = (ip: string, token?: string) => {
    const req = request(t.http).post('/api/v1/anything').set(TEST_CLIENT_IP_HEADER, ip);
    return token ? req.set('Authorization', `Bearer ${token}`) : req;
  };
  const signIn = (ip: string, accessToken = 'user-1') =>
    request(t.http).post('/api/v1/auth/idp1/token').set(TEST_CLIENT_IP_HEADER, ip).send({ access_token: accessToken });
  const statuses = async (requests: (() => request.Test)[]) => {
    const answers = [];
    for (const send of requests) answers.push((await send()).status);
    return answers;
  };

  async function tokenFor(subject: string): Promise<string> {
    return (await signIn(freshIp(), `user-${subject}`).expect(200)).body.token;
  }

  describe('non-GET requests', () => {
    it('allow a burst of 10, then answer 429 with an integer Retry-After and the error body', async () => {
      const ip = freshIp();
      expect(await statuses(Array.from({ length: 10 }, () => () => post(ip)))).toEqual(Array(10).fill(404));
      const limited = await post(ip).expect(429);
      expect(limited.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(limited.body).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: expect.any(String),
        code: 'RATE_LIMITED',
      });
    });

    it('refill at 2 per second', async () => {
      const ip = freshIp();
      await statuses(Array.from({ length: 10 }, () => () => post(ip)));
      await post(ip).expect(429);
      await sleep(550);
      await post(ip).expect(404);
      await post(ip).expect(429);
    });

    it('are keyed by the user of a valid JWT, not by the address', async () => {
      const [alice, bob] = await Promise.all([tokenFor('5001'), tokenFor('5002')]);
      const sharedIp = freshIp();
      await statuses(Array.from({ length: 10 }, () => () => post(sharedIp, alice)));
      await post(sharedIp, alice).expect(429);
      // Same address, another user, and the anonymous bucket of that address: untouched.
      await post(sharedIp, bob).expect(404);
      await post(sharedIp).expect(404);
      // Alice is limited from any address.
      await post(freshIp(), alice).expect(429);
    });

    it('key anonymous callers by client IP, and an invalid token counts as anonymous', async () => {
      const ip = freshIp();
      await statuses(Array.from({ length: 10 }, () => () => post(ip, 'not-a-valid-token')));
      await post(ip).expect(429);
      await post(freshIp()).expect(404);
    });

    it('never limit GET requests', async () => {
      const ip = freshIp();
      await statuses(Array.from({ length: 10 }, () => () => post(ip)));
      await post(ip).expect(429);
      const gets = await statuses(
        Array.from({ length: 30 }, () => () => request(t.http).get('/health').set(TEST_CLIENT_IP_HEADER, ip)),
      );
      expect(gets).toEqual(Array(30).fill(200));
    });
  });

  describe('/api/v1/auth/*', () => {
    it('allows a burst of 5 per IP, then 429 with Retry-After, and refills at 0.5 per second', async () => {
      const ip = freshIp();
      const burst = await statuses(Array.from({ length: 5 }, (_, i) => () => signIn(ip, `user-${6000 + i}`)));
      expect(burst).toEqual(Array(5).fill(200));
      const limited = await signIn(ip).expect(429);
      expect(limited.headers['retry-after']).toMatch(/^[12]$/);
      expect(limited.body.code).toBe('RATE_LIMITED');

      await signIn(freshIp()).expect(200);

      await sleep(2100);
      await signIn(ip).expect(200);
      await signIn(ip).expect(429);
    });

    it('limits by IP even for a signed-in user', async () => {
      const token = await tokenFor('6100');
      const ip = freshIp();
      const withdrawAttempt = () =>
        request(t.http).delete('/api/v1/auth/withdraw').set(TEST_CLIENT_IP_HEADER, ip).set('Authorization', `Bearer ${token}`);
      expect(await statuses(Array.from({ length: 5 }, () => withdrawAttempt))).toEqual(Array(5).fill(400));
      await withdrawAttempt().expect(429);
    });

    it('does not limit GET /api/v1/auth/me', async () => {
      const token = await tokenFor('6200');
      const ip = freshIp();
      const answers = await statuses(
        Array.from({ length: 12 }, () => () =>
          request(t.http).get('/api/v1/auth/me').set(TEST_CLIENT_IP_HEADER, ip).set('Authorization', `Bearer ${token}`),
        ),
      );
      expect(answers).toEqual(Array(12).fill(200));
    });
  });

  describe('without TRUSTED_CLIENT_IP_HEADER', () => {
    let direct: TestApp;

    beforeAll(async () => {
      direct = await startTestApp({ env: { TRUSTED_CLIENT_IP_HEADER: undefined, IDP1_USERINFO_URL: userInfo.userinfoUrl } });
    });
    afterAll(() => direct?.close());

    it('keys anonymous callers by the socket address, so forwarded headers cannot dodge the limit', async () => {
      const answers = await statuses(
        Array.from({ length: 11 }, (_, i) => () =>
          request(direct.http)
            .post('/api/v1/anything')
            .set('X-Forwarded-For', `198.51.100.${i}`)
            .set(TEST_CLIENT_IP_HEADER, `198.51.100.${i}`),
        ),
      );
      expect(answers).toEqual([...Array(10).fill(404), 429]);
    });
  });
});
