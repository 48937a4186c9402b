import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { JwtService } from '@nestjs/jwt';
import request from 'supertest';
import { MAX_URL_LENGTH } from '../../src/common/http/url-length';
import { LOGGED_URL_MAX_CHARS } from '../../src/logging/request-logger';
import { createRootLogger } from '../../src/logging/root-logger';
import { RATE_LIMIT_TIME } from '../../src/rate-limit/bucket-store';
import { eventually } from '../support/eventually';
import { FakeClock } from '../support/fake-clock';
import { bearerFor, createUser, insertAnalyses, insertFilings } from '../support/fixtures';
import { untilLockWaiters } from '../support/lock-waits';
import { RELAXED_RATE_LIMITS, startTestApp, TEST_CLIENT_IP_HEADER, type TestApp } from '../support/test-app';

/**
 * The audit's hostile requests (issue 10, item 3), each of which answered 500:
 * every one now gets a clear 4xx with the contract's error body.
 */
describe('hostile input gets a 4xx, never a 500', () => {
  let t: TestApp;
  let filingSerial = 0;

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
  });

  afterAll(async () => {
    await t?.close();
  });

  const bearer = (userId: number) => bearerFor(t, userId);
  const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
  /** ASCII that does not compress, so PostgreSQL stores it in an index entry byte for byte. */
  const randomAscii = (length: number) => randomBytes(length).toString('base64url').slice(0, length);

  /** A filing with a completed analysis that is not short, so a reveal inserts and charges. */
  async function createRevealableFiling(): Promise<string> {
    const rceptNo = `2026111899${String(++filingSerial).padStart(4, '0')}`;
    await insertFilings(t.dataSource, [
      { rcept_no: rceptNo, corp_code: '00126380', corp_name: 'Samsung', report_name: 'Report', rcept_dt: '20261118' },
    ]);
    await insertAnalyses(t.dataSource, [{ rcept_no: rceptNo, one_liner: 'One line', result: { summary: 'x' }, doc_length: 5000 }]);
    return rceptNo;
  }

  function expectErrorBody(res: request.Response, status: number, code: string): void {
    expect({ status: res.status, body: res.body as unknown }).toEqual({
      status,
      body: { statusCode: status, error: expect.any(String), message: expect.any(String), code },
    });
  }

  describe('deeply nested JSON', () => {
    it('answers 400 to a body nested 20,000 levels deep, anonymous or signed in', async () => {
      const anonymous = await request(t.http)
        .post('/api/v1/auth/idp1/token')
        .set('Content-Type', 'application/json')
        .send(`{"access_token":${nested(20_000)}}`);
      expectErrorBody(anonymous, 400, 'BAD_REQUEST');
      expect(anonymous.body.message).toBe('The JSON body is nested deeper than 32 levels');

      const signedIn = await request(t.http)
        .post('/api/v1/watchlist')
        .set('Authorization', bearer(await createUser(t.dataSource)))
        .set('Content-Type', 'application/json')
        .send(nested(20_000));
      expectErrorBody(signedIn, 400, 'BAD_REQUEST');
    });

    it('lets a body nested 32 levels through to validation (the bound is not a limit on real bodies)', async () => {
      const authorization = bearer(await createUser(t.dataSource));
      // 1 level for the object, 31 for the undeclared property that validation strips.
      const body = (extraDepth: number) => `{"fcm_token":"${randomAscii(160)}","platform":"ios","extra":${nested(extraDepth)}}`;
      const register = (json: string) =>
        request(t.http)
          .post('/api/v1/push/fcm-token')
          .set('Authorization', authorization)
          .set('Content-Type', 'application/json')
          .send(json);

      expect((await register(body(31))).status).toBe(204);
      expectErrorBody(await register(body(32)), 400, 'BAD_REQUEST');
    });
  });

  describe('Content-Encoding', () => {
    it.each(['gzip', 'br', 'deflate'])('answers 400 to a body labelled %s that is not compressed', async (encoding) => {
      const res = await request(t.http)
        .post('/api/v1/auth/idp1/token')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .send('{"access_token":"sandbox-plain"}');
      expectErrorBody(res, 400, 'BAD_REQUEST');
      expect(res.body.message).toBe('The request body is not valid for its Content-Encoding');
    });

    it('answers 415 to an encoding the server does not know', async () => {
      const res = await request(t.http)
        .post('/api/v1/auth/idp1/token')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'compress')
        .send('{"access_token":"sandbox-plain"}');
      expectErrorBody(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('text PostgreSQL cannot store', () => {
    it.each(['%00', 'sam%00sung', '%00%00%00'])('answers 400 to NUL in the stocks/search query (%s)', async (query) => {
      const res = await request(t.http).get(`/api/v1/stocks/search?query=${query}`);
      expectErrorBody(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toBe('query must not contain NUL characters or unpaired UTF-16 surrogates');
    });

    it('still searches text with invalid UTF-8 bytes (decoded as U+FFFD, which PostgreSQL stores)', async () => {
      const res = await request(t.http).get('/api/v1/stocks/search?query=%FF%C0%80');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });

    it('answers 400 to NUL or an unpaired surrogate in a JSON body string or key', async () => {
      for (const body of [
        '{"access_token":"sandbox-a\\u0000"}',
        '{"access_token":"sandbox-\\ud800"}',
        '{"\\u0000":1,"access_token":"sandbox-a"}',
      ]) {
        const res = await request(t.http).post('/api/v1/auth/idp1/token').set('Content-Type', 'application/json').send(body);
        expectErrorBody(res, 400, 'VALIDATION_FAILED');
      }
    });

    it('answers 400 to NUL in a path parameter', async () => {
      const res = await request(t.http).get('/api/v1/ai/analyze/%00');
      expectErrorBody(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toBe('rceptNo must not contain NUL characters or unpaired UTF-16 surrogates');
    });
  });

  describe('push tokens against the btree limit', () => {
    it('answers 400 to a token over 2,700 bytes and stores nothing', async () => {
      const userId = await createUser(t.dataSource);
      const fcmToken = randomAscii(3000);
      const res = await request(t.http)
        .post('/api/v1/push/fcm-token')
        .set('Authorization', bearer(userId))
        .send({ fcm_token: fcmToken, platform: 'android' });
      expectErrorBody(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toBe('fcm_token must be shorter than or equal to 1024 characters');
      expect(await t.dataSource.query('SELECT 1 FROM push_tokens WHERE user_id = $1', [userId])).toEqual([]);
    });

    it('stores a token of the maximum length in push_tokens and in a push delivery', async () => {
      const userId = await createUser(t.dataSource);
      const fcmToken = randomAscii(1024);
      await request(t.http)
        .post('/api/v1/push/fcm-token')
        .set('Authorization', bearer(userId))
        .send({ fcm_token: fcmToken, platform: 'android' })
        .expect(204);
      // The fan-out copies the token into push_deliveries' primary key, the same limit.
      const rceptNo = await createRevealableFiling();
      await t.dataSource.query('INSERT INTO push_deliveries (rcept_no, fcm_token, user_id) VALUES ($1, $2, $3)', [
        rceptNo,
        fcmToken,
        userId,
      ]);
    });
  });

  describe('other strings that land in a unique index', () => {
    it('answers 400 to an Android purchase token longer than store_purchases.store_ref', async () => {
      const res = await request(t.http)
        .post('/api/v1/subscription/verify')
        .set('Authorization', bearer(await createUser(t.dataSource)))
        .send({ platform: 'android', token: randomAscii(513), product_id: 'service.pro.monthly' });
      expectErrorBody(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toBe('token must be at most 512 characters for android');
    });
  });

  describe('service JWT', () => {
    it.each(['2147483648', '9999999999'])('answers 401 to a validly signed token whose sub %s is beyond users.id', async (sub) => {
      const now = Math.floor(t.clock.nowMs() / 1000);
      const token = t.app.get(JwtService).sign({ sub, iat: now, exp: now + 3600 });
      const res = await request(t.http).get('/api/v1/auth/me').set('Authorization', `Bearer ${token}`);
      expectErrorBody(res, 401, 'UNAUTHORIZED');
    });

    it('still accepts the largest users.id', async () => {
      await createUser(t.dataSource, { id: 2_147_483_647 });
      const res = await request(t.http).get('/api/v1/auth/me').set('Authorization', bearer(2_147_483_647)).expect(200);
      expect(res.body).toEqual({ user_id: 2_147_483_647 });
    });
  });

  describe('requests racing the withdrawal of their own account', () => {
    /**
     * Reproduces the race deterministically: the user's row is deleted in an open
     * transaction, so the JWT check still sees the user while the request's insert
     * waits on the row lock; the delete then commits and the insert finds no user.
     */
    async function answerWhileWithdrawn(send: (userId: number) => request.Test): Promise<request.Response> {
      const userId = await createUser(t.dataSource);
      const withdrawal = t.dataSource.createQueryRunner();
      await withdrawal.connect();
      try {
        await withdrawal.startTransaction();
        await withdrawal.query('DELETE FROM users WHERE id = $1', [userId]);
        const answer = send(userId).then((res) => res);
        await waitForLockWait();
        await withdrawal.commitTransaction();
        return await answer;
      } finally {
        await withdrawal.release();
      }
    }

    /** Resolves once some statement waits on a row lock (the request's foreign-key check). */
    const waitForLockWait = () => untilLockWaiters(t.dataSource);

    const routes: [string, (userId: number, rceptNo: string) => request.Test][] = [
      ['GET /api/v1/quota', (userId) => request(t.http).get('/api/v1/quota').set('Authorization', bearer(userId))],
      ['POST /api/v1/quota/ad-reward', (userId) => request(t.http).post('/api/v1/quota/ad-reward').set('Authorization', bearer(userId))],
      [
        'POST /api/v1/ai/analyze/{rceptNo}/reveal',
        (userId, rceptNo) => request(t.http).post(`/api/v1/ai/analyze/${rceptNo}/reveal`).set('Authorization', bearer(userId)),
      ],
      [
        'POST /api/v1/push/fcm-token',
        (userId) =>
          request(t.http)
            .post('/api/v1/push/fcm-token')
            .set('Authorization', bearer(userId))
            .send({ fcm_token: `race-${userId}-${randomAscii(40)}`, platform: 'ios' }),
      ],
    ];

    it.each(routes)('%s answers 401 when the account is deleted under it', async (_route, send) => {
      const rceptNo = await createRevealableFiling();
      const res = await answerWhileWithdrawn((userId) => send(userId, rceptNo));
      expectErrorBody(res, 401, 'UNAUTHORIZED');
      expect(res.body.message).toBe('The account of this token no longer exists');
    });

    it('answers only 2xx or 401 to requests sent in parallel with a real withdrawal, over many rounds', async () => {
      await t.dataSource.query(
        `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type) VALUES ('00126380', 'Samsung', '005930', 'Y')
         ON CONFLICT DO NOTHING`,
      );
      const rceptNo = await createRevealableFiling();
      const statuses = new Map<string, Set<number>>();
      for (let round = 0; round < 25; round++) {
        const userId = await createUser(t.dataSource);
        const racing: [string, request.Test][] = [
          ...routes.map(([route, send]): [string, request.Test] => [route, send(userId, rceptNo)]),
          [
            'POST /api/v1/watchlist',
            request(t.http).post('/api/v1/watchlist').set('Authorization', bearer(userId)).send({ corp_code: '00126380' }),
          ],
          ['GET /api/v1/watchlist/capacity', request(t.http).get('/api/v1/watchlist/capacity').set('Authorization', bearer(userId))],
        ];
        const withdraw = request(t.http)
          .delete('/api/v1/auth/withdraw')
          .set('Authorization', bearer(userId))
          .set('X-Confirm-Withdraw', 'yes');
        const [withdrawn, ...answers] = await Promise.all([withdraw, ...racing.map(([, test]) => test)]);
        expect(withdrawn.status).toBe(204);
        answers.forEach((res, index) => {
          const route = racing[index][0];
          statuses.set(route, (statuses.get(route) ?? new Set()).add(res.status));
          if (res.status >= 300) expectErrorBody(res, 401, 'UNAUTHORIZED');
        });
      }
      for (const seen of statuses.values()) for (const status of seen) expect([200, 201, 204, 401]).toContain(status);
    });
  });
});

/**
 * Issue 28, finding 2: one anonymous client slowed every answer with a few long URLs a
 * second (the log's redaction took time growing with the square of their length, each 404
 * was a warning).
 */
describe('one anonymous client cannot stall the service', () => {
  const lines: Record<string, unknown>[] = [];
  const time = new FakeClock();
  let t: TestApp;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    // The specification's limits, on buckets whose time stands still.
    t = await startTestApp({
      logger: createRootLogger({ appEnv: 'dev', logLevel: 'info' }, destination),
      env: { LOG_LEVEL: 'info' },
      overrides: [{ provide: RATE_LIMIT_TIME, useValue: time }],
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  let nextIp = 1;
  const freshIp = () => `198.51.100.${nextIp++}`;
  const accessLineOf = (reqId: string) =>
    eventually(() => lines.find((line) => line.reqId === reqId && typeof line.msg === 'string' && line.msg.startsWith('request ')));

  describe('long URLs', () => {
    it('answers 414 with the error body to a 16,000-character URL, and logs only a bounded prefix of it', async () => {
      const url = `/api/v1/stocks/search?query=${'a'.repeat(16_000 - 28)}`;
      expect(url).toHaveLength(16_000);
      const res = await request(t.http).get(url).set(TEST_CLIENT_IP_HEADER, freshIp());
      expect({ status: res.status, body: res.body as unknown }).toEqual({
        status: 414,
        body: {
          statusCode: 414,
          error: 'URI Too Long',
          message: `The request URL is longer than ${MAX_URL_LENGTH} characters`,
          code: 'URI_TOO_LONG',
        },
      });
      const line = await accessLineOf(res.headers['x-request-id']);
      expect(line).toMatchObject({ level: 'warn', res: { statusCode: 414 }, req: { method: 'GET', urlLength: 16_000 } });
      expect((line.req as { url: string }).url).toBe(url.slice(0, LOGGED_URL_MAX_CHARS));
      // No other line carries any of it.
      expect(lines.filter((logged) => JSON.stringify(logged).includes('a'.repeat(400)))).toEqual([line]);
    });

    it('refuses it before the rate limits, routing and the HTTP cache', async () => {
      const ip = freshIp();
      const long = `/api/v1/disclosures/recent?x=${'b'.repeat(MAX_URL_LENGTH)}`;
      for (let i = 0; i < 3; i++) await request(t.http).get(long).set(TEST_CLIENT_IP_HEADER, ip).expect(414);
      await request(t.http).post(long).set(TEST_CLIENT_IP_HEADER, ip).send({}).expect(414);
      await request(t.http).head(long).set(TEST_CLIENT_IP_HEADER, ip).expect(414);
      const metrics = await request(t.http).get('/metrics').expect(200);
      expect(metrics.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="none",status_code="414"\} [1-9]/);
      expect(metrics.text).not.toMatch(/route="\/api\/v1\/disclosures\/recent",status_code="414"/);
    });

    it('serves a URL of exactly the bound', async () => {
      const prefix = '/api/v1/stocks/search?query=%EC%82%BC%EC%84%B1&pad=';
      const url = prefix + 'c'.repeat(MAX_URL_LENGTH - prefix.length);
      expect(url).toHaveLength(MAX_URL_LENGTH);
      await request(t.http).get(url).set(TEST_CLIENT_IP_HEADER, freshIp()).expect(200);
    });
  });

  it('logs a 404 at info, and other 4xx still at warn', async () => {
    const missing = await request(t.http).get('/api/v1/no-such-thing').set(TEST_CLIENT_IP_HEADER, freshIp()).expect(404);
    const invalid = await request(t.http).get('/api/v1/disclosures').set(TEST_CLIENT_IP_HEADER, freshIp()).expect(400);
    expect(await accessLineOf(missing.headers['x-request-id'])).toMatchObject({ level: 'info', res: { statusCode: 404 } });
    expect(await accessLineOf(invalid.headers['x-request-id'])).toMatchObject({ level: 'warn', res: { statusCode: 400 } });
  });
});
