import { Writable } from 'node:stream';
import { OAuth2Client } from 'google-auth-library';
import request from 'supertest';
import { createRootLogger } from '../../src/logging/root-logger';
import { GOOGLE_PLAY_AUTH } from '../../src/subscriptions/stores/google-play.client';
import { type HttpDouble, sendJson, startHttpDouble } from '../support/http-double';
import { startUserInfoDouble } from '../support/identity-provider-doubles';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/** Every configured secret, with a value the log can be searched for. */
const CONFIGURED = {
  JWT_SECRET: 'jwt-secret-of-the-log-test-6f1c0b9e2d7a4c58',
  ADMIN_KEY: 'admin-key-of-the-log-test-93b5e0c1a7d24f86',
  WEB_SECRET: 'web-secret-of-the-log-test-1d8e4a6c0b9f2735',
  GOOGLE_PUBSUB_SHARED_SECRET: 'pubsub-secret-of-the-log-test-5a2c9e7b',
  DART_API_KEY: 'dartkey0log0test0c3f5a7e9b1d2c4e6f80a1b',
  OPENAI_API_KEY: 'sk-openai-log-test-4e6a8c0d2f1b3a5c7e9d',
  ANTHROPIC_API_KEY: 'sk-ant-log-test-8b0d2f4a6c1e3b5d7f9a',
};
/** Credentials of callers and of the outside world, not configured but just as secret. */
const FCM_TOKEN = 'dGVzdC1pbnN0YW5jZQ:APA91bLogTestTokenHun4MxP5egoKMwt2KZFBaFUH1RYqx7';
const IDP_ACCESS_TOKEN = 'user-7310042';
const PLAY_ACCESS_TOKEN = 'ya29.play-access-token-of-the-log-test';
const PACKAGE = 'com.example.briefing';

/**
 * Secrets never reach the log: the real app, logging at debug level through the
 * real root logger, serves requests that succeed, fail with 4xx and 5xx and call
 * upstreams that echo what they were sent; then the whole log is searched.
 */
describe('log redaction', () => {
  const log: string[] = [];
  let t: TestApp;
  let dart: HttpDouble;
  let play: HttpDouble;
  let userInfo: HttpDouble & { userinfoUrl: string };

  beforeAll(async () => {
    // Hostile upstreams: their errors repeat the URL (with the key) and the credentials they got.
    dart = await startHttpDouble((req, res) => sendJson(res, 500, { error: `bad request ${req.url}` }));
    play = await startHttpDouble((req, res) =>
      sendJson(res, 500, { error: { code: 500, message: `cannot serve ${req.url} for ${req.headers.authorization}` } }),
    );
    userInfo = await startUserInfoDouble();
    const playAuth = new OAuth2Client();
    playAuth.setCredentials({ access_token: PLAY_ACCESS_TOKEN, expiry_date: Date.now() + 3_600_000 });
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log.push(chunk.toString());
        done();
      },
    });
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      logger: createRootLogger({ appEnv: 'dev', logLevel: 'debug' }, destination),
      env: {
        ...CONFIGURED,
        LOG_LEVEL: 'debug',
        DEVICE_ATTESTATION: 'enforce',
        DART_API_BASE_URL: `${dart.url}/api`,
        DART_MAX_ATTEMPTS: '1',
        IDP1_USERINFO_URL: userInfo.userinfoUrl,
        GOOGLE_PLAY_PACKAGE_NAME: PACKAGE,
        GOOGLE_PLAY_API_BASE_URL: `${play.url}/`,
      },
      overrides: [{ provide: GOOGLE_PLAY_AUTH, useValue: playAuth }],
    });
  });

  afterAll(async () => {
    await t?.close();
    await dart?.close();
    await play?.close();
    await userInfo?.close();
  });

  it('writes no secret, whatever the requests and upstreams did', async () => {
    const http = t.http;
    const admin = CONFIGURED.ADMIN_KEY;
    const jwt = (await request(http).post('/api/v1/auth/idp1/token').send({ access_token: IDP_ACCESS_TOKEN }).expect(200)).body
      .token as string;
    const bearer = `Bearer ${jwt}`;

    // 2xx and 4xx with credentials in headers, bodies and query strings
    await request(http)
      .post('/api/v1/push/fcm-token')
      .set('Authorization', bearer)
      .send({ fcm_token: FCM_TOKEN, platform: 'android' })
      .expect(204);
    await request(http).delete(`/api/v1/push/fcm-token?fcm_token=${FCM_TOKEN}`).set('Authorization', bearer).send({ fcm_token: FCM_TOKEN });
    await request(http).get(`/api/v1/nothing-here?fcm_token=${FCM_TOKEN}&access_token=${jwt}&v=${admin}`).expect(404);
    await request(http).get('/api/v1/auth/me').set('Authorization', `${bearer} x`).expect(401);
    await request(http)
      .post('/api/v1/ai/analyze/20240101000001/reveal')
      .set('Authorization', bearer)
      .set('X-Worker-Secret', CONFIGURED.WEB_SECRET);
    await request(http)
      .post('/api/v1/ai/analyze/20240101000001/reveal')
      .set('Authorization', bearer)
      .set('X-Worker-Secret', 'wrong')
      .expect(403);
    await request(http).get('/api/v1/admin/status').set('X-Admin-Key', admin).expect(200);
    await request(http).get('/api/v1/admin/status').set('X-Admin-Key', `${admin}-wrong`).expect(401);
    await request(http)
      .post('/api/v1/auth/idp1/token')
      .send({ access_token: `${IDP_ACCESS_TOKEN}-unknown` })
      .expect(401);

    // 5xx: the disclosure system fails and echoes the request URL with the key
    await request(http).post('/api/v1/admin/disclosures/fetch?beginDate=20240101&endDate=20240102').set('X-Admin-Key', admin).expect(500);

    // 5xx: the store cannot be read; the push URL carries the shared secret
    const notification = {
      version: '1.0',
      packageName: PACKAGE,
      eventTimeMillis: String(Date.now()),
      subscriptionNotification: {
        version: '1.0',
        notificationType: 13,
        purchaseToken: 'purchase-of-the-log-test',
        subscriptionId: 'service.pro.monthly',
      },
    };
    const push = {
      message: { data: Buffer.from(JSON.stringify(notification)).toString('base64'), messageId: 'message-log-test-1' },
      subscription: 'projects/example/subscriptions/play',
    };
    await request(http).post(`/internal/store-b-notifications?token=${CONFIGURED.GOOGLE_PUBSUB_SHARED_SECRET}`).send(push).expect(503);
    await request(http).post(`/internal/store-b-notifications?token=${CONFIGURED.GOOGLE_PUBSUB_SHARED_SECRET}x`).send(push).expect(401);

    const text = log.join('');
    const secrets = { ...CONFIGURED, FCM_TOKEN, IDP_ACCESS_TOKEN, PLAY_ACCESS_TOKEN, BEARER_JWT: jwt };
    const leaked = Object.entries(secrets)
      .filter(([, value]) => text.includes(value))
      .map(([name]) => name);
    expect(leaked).toEqual([]);

    // The log did record these requests, failures and upstream errors (else the search proves nothing).
    expect(text).toContain('/internal/store-b-notifications?token=[redacted]');
    expect(text).toContain('/api/v1/push/fcm-token?fcm_token=[redacted]');
    expect(text).toMatch(/admin fetch: disclosure system call failed/);
    expect(text).toMatch(/Play re-read failed/);
    expect(text).toMatch(/"level":"error"/);
  });
});
