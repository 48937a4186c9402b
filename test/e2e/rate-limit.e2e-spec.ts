import request from 'supertest';
import { startUserInfoDouble } from '../support/identity-provider-doubles';
import type { HttpDouble } from '../support/http-double';
import { FakeClock } from '../support/fake-clock';
import { RATE_LIMIT_TIME } from '../../src/rate-limit/bucket-store';
import { RATE_LIMIT_STORES } from '../../src/rate-limit/rate-limit.config';
import { startTestApp, TEST_CLIENT_IP_HEADER, type TestApp } from '../support/test-app';

/**
 * The specification's limits with their real numbers: non-GET requests 2/s with a
 * burst of 10 per user (or IP), `/api/v1/auth/*` 0.5/s with a burst of 5 per IP.
 * Every test uses its own client IPs so buckets never carry over between tests.
 * All of it runs against both stores: the shared PostgreSQL buckets and the in-process ones.
 * The buckets' time is a FakeClock (RATE_LIMIT_TIME): it stands still while requests are
 * served, and the test moves it to the exact moment a token comes back.
 */
describe.each(RATE_LIMIT_STORES)('rate limits (RATE_LIMIT_STORE=%s)', (store) => {
  let userInfo: HttpDouble & { userinfoUrl: string };
  let t: TestApp;
  let nextIp = 1;
  const freshIp = () => `203.0.113.${nextIp++}`;
  const time = new FakeClock();

  beforeAll(async () => {
    userInfo = await startUserInfoDouble();
    t = await startTestApp({
      clock: time,
      overrides: [{ provide: RATE_LIMIT_TIME, useValue: time }],
      env: { IDP1_USERINFO_URL: userInfo.userinfoUrl, RATE_LIMIT_STORE: store },
    });
  });

  afterAll(async () => {
    await t?.close();
    await userInfo?.close();
  });

  /** A mutating request outside /auth: the limiter answers before routing, so a 404 still counts. */
  const postTo = (app: TestApp, ip: string, token?: string) => {
    const req = request(app.http).post('/api/v1/anything').set(TEST_CLIENT_IP_HEADER, ip);
    return token ? req.set('Authorization', `Bearer ${token}`) : req;
  };
  const post = (ip: string, token?: string) => postTo(t, ip, token);
  const signIn = (app: TestApp, ip: string, accessToken = 'user-1') =>
    request(app.http).post('/api/v1/auth/idp1/token').set(TEST_CLIENT_IP_HEADER, ip).send({ access_token: accessToken });
  const statuses = async (requests: (() => request.Test)[]) => {
    const answers = [];
    for (const send of requests) answers.push((await send()).status);
    return answers;
  };
  /** Sends all at once. */
  const burst = (count: number, send: (i: number) => request.Test) => Promise.all(Array.from({ length: count }, (_, i) => send(i)));

  async function tokenFor(app: TestApp, subject: string): Promise<string> {
    return (await signIn(app, freshIp(), `user-${subject}`).expect(200)).body.token;
  }

  it('keeps the buckets where RATE_LIMIT_STORE says', async () => {
    const ip = freshIp();
    await post(ip).expect(404);
    const rows: { tokens: number }[] = await t.dataSource.query('SELECT tokens FROM rate_limit_buckets WHERE rule = $1 AND key = $2', [
      'general',
      `ip:${ip}`,
    ]);
    expect(rows.map((row) => Math.floor(row.tokens))).toEqual(store === 'postgres' ? [9] : []);
  });

  describe("the specification's numbers", () => {
    it('non-GET: a burst of 10, then 429 with an integer Retry-After and the error body', async () => {
      const ip = freshIp();
      const answers = await burst(16, () => post(ip));
      expect(answers.filter((res) => res.status === 404)).toHaveLength(10);
      expect(answers.filter((res) => res.status === 429)).toHaveLength(6);
      const limited = answers.find((res) => res.status === 429)!;
      // The next token is 500 ms away.
      expect(limited.headers['retry-after']).toBe('1');
      expect(limited.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.any(String), code: 'RATE_LIMITED' });
    });

    it('non-GET: refills at 2 per second', async () => {
      const ip = freshIp();
      await burst(14, () => post(ip));
      time.advance(499);
      await post(ip).expect(429);
      time.advance(1);
      await post(ip).expect(404);
      const answers = await burst(4, () => post(ip));
      expect(answers.map((res) => res.status)).toEqual(Array(4).fill(429));
      time.advance(1000);
      expect(await statuses(Array.from({ length: 3 }, () => () => post(ip)))).toEqual([404, 404, 429]);
    });

    it('GET requests are never limited', async () => {
      const ip = freshIp();
      await burst(14, () => post(ip));
      const gets = await statuses(Array.from({ length: 30 }, () => () => request(t.http).get('/health').set(TEST_CLIENT_IP_HEADER, ip)));
      expect(gets).toEqual(Array(30).fill(200));
    });

    it('/api/v1/auth/*: a burst of 5 per IP, then 429 with Retry-After, refilled at 0.5 per second', async () => {
      const ip = freshIp();
      const answers = await burst(8, (i) => signIn(t, ip, `user-${6000 + i}`));
      expect(answers.filter((res) => res.status === 200)).toHaveLength(5);
      expect(answers.filter((res) => res.status === 429)).toHaveLength(3);
      const limited = answers.find((res) => res.status === 429)!;
      // The next token is 2 s away.
      expect(limited.headers['retry-after']).toBe('2');
      expect(limited.body.code).toBe('RATE_LIMITED');

      await signIn(t, freshIp()).expect(200);
      time.advance(1999);
      await signIn(t, ip).expect(429);
      time.advance(1);
      await signIn(t, ip).expect(200);
      await signIn(t, ip).expect(429);
    });

    it('does not limit GET /api/v1/auth/me', async () => {
      const token = await tokenFor(t, '6200');
      const ip = freshIp();
      const answers = await statuses(
        Array.from(
          { length: 12 },
          () => () => request(t.http).get('/api/v1/auth/me').set(TEST_CLIENT_IP_HEADER, ip).set('Authorization', `Bearer ${token}`),
        ),
      );
      expect(answers).toEqual(Array(12).fill(200));
    });
  });

  /**
   * Who shares a bucket, on an app whose buckets (same capacities) practically never
   * refill, so the answers do not depend on how fast the machine serves the requests.
   */
  describe('bucket keys', () => {
    const NO_REFILL = {
      general: { name: 'general', capacity: 10, refillPerSecond: 0.0001 },
      auth: { name: 'auth', capacity: 5, refillPerSecond: 0.0001 },
    };
    let keyed: TestApp;
    let direct: TestApp;

    beforeAll(async () => {
      keyed = await startTestApp({
        database: t.database,
        rateLimits: NO_REFILL,
        env: { IDP1_USERINFO_URL: userInfo.userinfoUrl, RATE_LIMIT_STORE: store },
      });
      direct = await startTestApp({
        database: t.database,
        rateLimits: NO_REFILL,
        env: { TRUSTED_CLIENT_IP_HEADER: undefined, IDP1_USERINFO_URL: userInfo.userinfoUrl, RATE_LIMIT_STORE: store },
      });
    });
    afterAll(async () => {
      await keyed?.close();
      await direct?.close();
    });

    it('non-GET requests are keyed by the user of a valid JWT, not by the address', async () => {
      const [alice, bob] = [await tokenFor(keyed, '5001'), await tokenFor(keyed, '5002')];
      const sharedIp = freshIp();
      expect(await statuses(Array.from({ length: 10 }, () => () => postTo(keyed, sharedIp, alice)))).toEqual(Array(10).fill(404));
      await postTo(keyed, sharedIp, alice).expect(429);
      // Same address, another user, and the anonymous bucket of that address: untouched.
      await postTo(keyed, sharedIp, bob).expect(404);
      await postTo(keyed, sharedIp).expect(404);
      // Alice is limited from any address.
      await postTo(keyed, freshIp(), alice).expect(429);
    });

    it('anonymous callers are keyed by client IP, and an invalid token counts as anonymous', async () => {
      const ip = freshIp();
      await statuses(Array.from({ length: 10 }, () => () => postTo(keyed, ip, 'not-a-valid-token')));
      await postTo(keyed, ip).expect(429);
      await postTo(keyed, freshIp()).expect(404);
    });

    it('/api/v1/auth/* limits by IP even for a signed-in user', async () => {
      const token = await tokenFor(keyed, '6100');
      const ip = freshIp();
      const withdrawAttempt = () =>
        request(keyed.http).delete('/api/v1/auth/withdraw').set(TEST_CLIENT_IP_HEADER, ip).set('Authorization', `Bearer ${token}`);
      expect(await statuses(Array.from({ length: 5 }, () => withdrawAttempt))).toEqual(Array(5).fill(400));
      await withdrawAttempt().expect(429);
    });

    describe('the bearer header is read exactly as authentication reads it', () => {
      const registerPushToken = (ip: string, authorization: string) =>
        request(keyed.http)
          .post('/api/v1/push/fcm-token')
          .set(TEST_CLIENT_IP_HEADER, ip)
          .set('Authorization', authorization)
          .send({ fcm_token: 'device-token-1', platform: 'android' });

      it('a valid JWT followed by another word, from a new address each time, writes nothing: 401 every time', async () => {
        const token = await tokenFor(keyed, '5101');
        const answers = await statuses(Array.from({ length: 30 }, () => () => registerPushToken(freshIp(), `Bearer ${token} x`)));
        expect(answers).toEqual(Array(30).fill(401));
      });

      it('every header form that authenticates is keyed by its user, whatever the address', async () => {
        const token = await tokenFor(keyed, '5102');
        const forms = [`Bearer ${token}`, `bearer ${token}`, `BEARER   ${token}`, `Bearer	${token}`];
        const answers = await statuses(Array.from({ length: 10 }, (_, i) => () => registerPushToken(freshIp(), forms[i % forms.length])));
        expect(answers).toEqual(Array(10).fill(204));
        for (const form of forms) await registerPushToken(freshIp(), form).expect(429);
      });

      it('any other Authorization header is 401 on optional-JWT routes too, never silently anonymous', async () => {
        const token = await tokenFor(keyed, '5103');
        const read = (authorization?: string) => {
          const req = request(keyed.http).get('/api/v1/ai/analyze/20240101000001');
          return authorization === undefined ? req : req.set('Authorization', authorization);
        };
        for (const header of [`Bearer ${token} x`, `Basic ${token}`, token, 'Bearer']) {
          const res = await read(header);
          expect({ header, status: res.status }).toEqual({ header, status: 401 });
        }
        await read().expect(404);
        await read(`Bearer ${token}`).expect(404);
      });
    });

    describe('the trusted client-IP header', () => {
      it('is keyed by the address the proxy wrote (right-most), not by addresses the client prepended', async () => {
        const ip = freshIp();
        const answers = await statuses(
          Array.from(
            { length: 11 },
            (_, i) => () => request(keyed.http).post('/api/v1/anything').set(TEST_CLIENT_IP_HEADER, `6.6.6.${i}, ${ip}`),
          ),
        );
        expect(answers).toEqual([...Array(10).fill(404), 429]);
      });

      it('reads repeated headers as one list joined in order', async () => {
        const ip = freshIp();
        const answers = await statuses(
          Array.from(
            { length: 11 },
            (_, i) => () =>
              request(keyed.http)
                .post('/api/v1/anything')
                .set(TEST_CLIENT_IP_HEADER, [`6.6.7.${i}`, ip] as unknown as string),
          ),
        );
        expect(answers).toEqual([...Array(10).fill(404), 429]);
      });

      it('with TRUSTED_PROXY_HOPS=2 takes the address the outer proxy wrote', async () => {
        const twoProxies = await startTestApp({
          database: t.database,
          rateLimits: NO_REFILL,
          env: { TRUSTED_PROXY_HOPS: '2', RATE_LIMIT_STORE: store },
        });
        try {
          const ip = freshIp();
          const answers = await statuses(
            Array.from(
              { length: 11 },
              (_, i) => () =>
                request(twoProxies.http).post('/api/v1/anything').set(TEST_CLIENT_IP_HEADER, `6.6.8.${i}, ${ip}, 10.0.0.${i}`),
            ),
          );
          expect(answers).toEqual([...Array(10).fill(404), 429]);
        } finally {
          await twoProxies.close();
        }
      });
    });

    it('the auth-route limit holds for every spelling Express routes to /api/v1/auth', async () => {
      const ip = freshIp();
      const spellings = ['/API/V1/AUTH/idp1/token', '/api/v1/Auth/idp1/token/', '/Api/V1/auth/IDP1/TOKEN', '/api/v1/auth/idp1/token'];
      const signInAt = (path: string, i: number) =>
        request(keyed.http)
          .post(path)
          .set(TEST_CLIENT_IP_HEADER, ip)
          .send({ access_token: `user-${5200 + i}` });
      // Each spelling reaches the sign-in route, and all of them share one bucket.
      const answers = await statuses(Array.from({ length: 5 }, (_, i) => () => signInAt(spellings[i % spellings.length], i)));
      expect(answers).toEqual(Array(5).fill(200));
      for (const [i, path] of spellings.entries()) {
        const res = await signInAt(path, 10 + i);
        expect({ path, status: res.status }).toEqual({ path, status: 429 });
      }
    });

    it('spellings Express does not route to /api/v1/auth never reach it', async () => {
      for (const path of [
        '/api/v1/%61uth/idp1/token',
        '/api/v1/auth%2Fidp1/token',
        '//api/v1/auth/idp1/token',
        '/api/v1/auth/idp1/token%20',
      ]) {
        const res = await request(keyed.http).post(path).set(TEST_CLIENT_IP_HEADER, freshIp()).send({ access_token: 'user-5300' });
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
      }
    });

    it('a 429 carries the CORS headers and exposes Retry-After to the browser', async () => {
      const ip = freshIp();
      await statuses(Array.from({ length: 10 }, () => () => postTo(keyed, ip)));
      const limited = await postTo(keyed, ip).set('Origin', 'https://web.example').expect(429);
      expect(limited.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(limited.headers['access-control-allow-origin']).toBe('*');
      expect(limited.headers['access-control-expose-headers']).toMatch(/Retry-After/);
      expect(limited.headers['x-content-type-options']).toBe('nosniff');
      expect(limited.body.code).toBe('RATE_LIMITED');
    });

    it('without TRUSTED_CLIENT_IP_HEADER the socket address is the key, so forwarded headers cannot dodge the limit', async () => {
      const answers = await statuses(
        Array.from(
          { length: 11 },
          (_, i) => () =>
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
