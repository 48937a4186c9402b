import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuth2Client } from 'google-auth-library';
import { SignJWT } from 'jose';
import request from 'supertest';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Metrics } from '../../src/metrics/metrics';
import { GOOGLE_PLAY_AUTH } from '../../src/subscriptions/stores/google-play.client';
import { bearerFor, createUser } from '../support/fixtures';
import { type HttpDouble, sendJson, startHttpDouble } from '../support/http-double';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const DAY_MS = 24 * 60 * 60 * 1000;
// The package of the real envelope below (test/fixtures/real-stores/SOURCES.md).
const PACKAGE = 'com.edufox';
const REAL = path.join(__dirname, '../fixtures/real-stores/google-play');
const realJson = (name: string) => JSON.parse(readFileSync(path.join(REAL, name), 'utf8')) as Record<string, unknown>;
const AUDIENCE = 'https://api.example.com/internal/store-b-notifications';
const PUSH_EMAIL = 'play-push@example-project.iam.gserviceaccount.com';
const SHARED_SECRET = 'shared-secret-of-the-push-endpoint';
const PURCHASE_PATH = `/androidpublisher/v3/applications/${PACKAGE}/purchases/subscriptionsv2/tokens/`;
const KEY_ID = 'test-key-1';

type PlayAnswer = { status: number } | { state: string; productId: string; expiry: Date; linkedPurchaseToken?: string } | { body: unknown };

describe('POST /internal/store-b-notifications (Pub/Sub push of the Android store)', () => {
  let t: TestApp;
  let play: HttpDouble;
  let certs: HttpDouble;
  const answers = new Map<string, PlayAnswer>();
  let certsDown = false;
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 });

  beforeAll(async () => {
    play = await startHttpDouble((req: IncomingMessage, res: ServerResponse) => {
      const answer = answers.get(decodeURIComponent((req.url ?? '').slice(PURCHASE_PATH.length).split('?')[0]));
      if (!answer) return sendJson(res, 404, { error: { code: 404 } });
      if ('status' in answer) return sendJson(res, answer.status, { error: { code: answer.status } });
      if ('body' in answer) return sendJson(res, 200, answer.body);
      sendJson(res, 200, {
        subscriptionState: answer.state,
        linkedPurchaseToken: answer.linkedPurchaseToken,
        lineItems: [{ productId: answer.productId, expiryTime: answer.expiry.toISOString() }],
      });
    });
    // Google's certificate endpoint: PEM per key id (or an outage).
    certs = await startHttpDouble((_req, res) =>
      certsDown
        ? sendJson(res, 503, { error: 'backend unavailable' })
        : sendJson(res, 200, { [KEY_ID]: signingKey.publicKey.export({ type: 'spki', format: 'pem' }) }),
    );
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: 'play-access-token', expiry_date: Date.now() + 3_600_000 });
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      env: {
        GOOGLE_PLAY_PACKAGE_NAME: PACKAGE,
        GOOGLE_PLAY_API_BASE_URL: `${play.url}/`,
        GOOGLE_PUBSUB_AUDIENCE: AUDIENCE,
        GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL: PUSH_EMAIL,
        GOOGLE_PUBSUB_SHARED_SECRET: SHARED_SECRET,
        GOOGLE_OIDC_CERTS_URL: `${certs.url}/certs`,
        // The product of the real subscriptionsv2 body.
        SUBSCRIPTION_PRODUCTS: 'service.pro.monthly=pro,service.max.monthly=max,prometheus_pro=pro',
      },
      overrides: [{ provide: GOOGLE_PLAY_AUTH, useValue: auth }],
    });
  });

  afterAll(async () => {
    await t?.close();
    await play?.close();
    await certs?.close();
  });

  beforeEach(() => {
    // The OIDC token is checked against real time; the service clock follows it here.
    t.clock.set(new Date());
    answers.clear();
  });

  /** A Pub/Sub push OIDC token as Google signs it. */
  async function oidcToken(
    claims: { aud?: string; email?: string; emailVerified?: boolean } = {},
    key: KeyObject = signingKey.privateKey,
  ): Promise<string> {
    return new SignJWT({ email: claims.email ?? PUSH_EMAIL, email_verified: claims.emailVerified ?? true })
      .setProtectedHeader({ alg: 'RS256', kid: KEY_ID, typ: 'JWT' })
      .setIssuer('https://accounts.google.com')
      .setAudience(claims.aud ?? AUDIENCE)
      .setSubject('112233445566778899')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key);
  }

  let seq = 0;
  const unique = (prefix: string) => `${prefix}-${++seq}-${Date.now()}`;

  function envelope(data: unknown, messageId = unique('message')) {
    return {
      message: { data: Buffer.from(JSON.stringify(data)).toString('base64'), messageId, publishTime: new Date().toISOString() },
      subscription: 'projects/example/subscriptions/play',
    };
  }
  const subscriptionEvent = (purchaseToken: string, notificationType: number, eventTime = t.clock.nowMs()) => ({
    version: '1.0',
    packageName: PACKAGE,
    eventTimeMillis: String(eventTime),
    subscriptionNotification: { version: '1.0', notificationType, purchaseToken, subscriptionId: 'service.pro.monthly' },
  });
  /** A valid push token, signed once; it stays valid for the 10 minutes the file runs at most. */
  let validToken: string;
  beforeAll(async () => {
    validToken = await oidcToken();
  });
  const push = (body: unknown) =>
    request(t.http)
      .post('/internal/store-b-notifications')
      .set('Authorization', `Bearer ${validToken}`)
      .send(body as object);

  async function subscribedUser(tier: 'pro' | 'max' = 'pro'): Promise<{ userId: number; token: string }> {
    const id = await createUser(t.dataSource);
    const token = unique('purchase');
    answers.set(token, {
      state: 'SUBSCRIPTION_STATE_ACTIVE',
      productId: `service.${tier}.monthly`,
      expiry: new Date(t.clock.nowMs() + 5 * DAY_MS),
    });
    await request(t.http)
      .post('/api/v1/subscription/verify')
      .set('Authorization', bearerFor(t, id))
      .send({ platform: 'android', token, product_id: `service.${tier}.monthly` })
      .expect(200);
    return { userId: id, token };
  }
  const userRow = async (userId: number) =>
    (
      await t.dataSource.query<{ premium_tier: string; premium_until: Date | null; downgraded_at: Date | null }[]>(
        'SELECT premium_tier, premium_until, downgraded_at FROM users WHERE id = $1',
        [userId],
      )
    )[0];
  const quotaOf = async (userId: number) =>
    (await request(t.http).get('/api/v1/quota').set('Authorization', bearerFor(t, userId)).expect(200)).body as {
      tier: string;
      weekly_limit: number;
    };
  const recorded = async (messageId: string) =>
    (await t.dataSource.query("SELECT 1 FROM store_notifications WHERE platform = 'android' AND notification_id = $1", [messageId])).length;

  it('RENEWED: re-reads the purchase and refreshes premium_until', async () => {
    const { userId, token } = await subscribedUser();
    const renewed = new Date(t.clock.nowMs() + 35 * DAY_MS);
    answers.set(token, { state: 'SUBSCRIPTION_STATE_ACTIVE', productId: 'service.pro.monthly', expiry: renewed });

    const res = await push(envelope(subscriptionEvent(token, 2))).expect(200);

    expect(res.body).toEqual({ status: 'applied' });
    expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_until: renewed });
  });

  it('IN_GRACE_PERIOD keeps the tier until the expiry the store reports', async () => {
    const { userId, token } = await subscribedUser('max');
    const graceEnd = new Date(t.clock.nowMs() + 3 * DAY_MS);
    answers.set(token, { state: 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD', productId: 'service.max.monthly', expiry: graceEnd });

    await push(envelope(subscriptionEvent(token, 6))).expect(200);

    expect(await userRow(userId)).toMatchObject({ premium_tier: 'max', premium_until: graceEnd, downgraded_at: null });
    expect(await quotaOf(userId)).toMatchObject({ tier: 'max', weekly_limit: 200 });
  });

  it.each([
    ['EXPIRED', 13],
    ['REVOKED', 12],
    ['ON_HOLD', 5],
  ])('%s: the re-read state withdraws the entitlement and records the downgrade', async (_label, type) => {
    const { userId, token } = await subscribedUser();
    const state = type === 5 ? 'SUBSCRIPTION_STATE_ON_HOLD' : 'SUBSCRIPTION_STATE_EXPIRED';
    const endedAt = new Date(t.clock.nowMs() - 1000);
    answers.set(token, { state, productId: 'service.pro.monthly', expiry: endedAt });

    await push(envelope(subscriptionEvent(token, type))).expect(200);

    // The downgrade took effect when the store says the purchase ended.
    expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', premium_until: null, downgraded_at: endedAt });
    expect(await quotaOf(userId)).toMatchObject({ tier: 'none', weekly_limit: 10 });
  });

  const voided = (purchaseToken: string, eventTime: number) =>
    envelope({
      version: '1.0',
      packageName: PACKAGE,
      eventTimeMillis: String(eventTime),
      voidedPurchaseNotification: { purchaseToken, refundType: 1 },
    });

  it('a voided purchase (refund) withdraws the entitlement once the re-read confirms it, dated at the refund', async () => {
    const { userId, token } = await subscribedUser();
    const refundedAt = t.clock.nowMs() - 5000;
    answers.set(token, {
      state: 'SUBSCRIPTION_STATE_EXPIRED',
      productId: 'service.pro.monthly',
      expiry: new Date(t.clock.nowMs() + 5 * DAY_MS),
    });

    await push(voided(token, refundedAt)).expect(200, { status: 'applied' });

    expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', downgraded_at: new Date(refundedAt) });
  });

  it('a voided order of an earlier period leaves the period in force when the re-read says it still serves', async () => {
    const { userId, token } = await subscribedUser();

    await push(voided(token, t.clock.nowMs() - 5000)).expect(200, { status: 'applied' });

    expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', downgraded_at: null });
  });

  it('acknowledges a repeated messageId without applying or re-reading it again', async () => {
    const { userId, token } = await subscribedUser();
    const body = envelope(subscriptionEvent(token, 2));
    await push(body).expect(200, { status: 'applied' });
    answers.set(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', productId: 'service.pro.monthly', expiry: new Date(t.clock.nowMs() - 1) });
    const before = play.requests.length;

    await push(body).expect(200, { status: 'duplicate' });

    expect(play.requests.length).toBe(before);
    expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro' });
  });

  it('applies one of two parallel deliveries of the same message; the unique key turns the other into a duplicate', async () => {
    const { token } = await subscribedUser();
    const body = envelope(subscriptionEvent(token, 2));
    const results = await Promise.all([push(body), push(body), push(body)]);
    expect(results.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(results.map((res) => (res.body as { status: string }).status).sort()).toEqual(['applied', 'duplicate', 'duplicate']);
    expect(await recorded(body.message.messageId)).toBe(1);
  });

  it('keeps a purchase nobody has verified yet and binds it at a later verify', async () => {
    const token = unique('unseen');
    const expiry = new Date(t.clock.nowMs() + 20 * DAY_MS);
    answers.set(token, { state: 'SUBSCRIPTION_STATE_ACTIVE', productId: 'service.max.monthly', expiry });

    await push(envelope(subscriptionEvent(token, 4))).expect(200, { status: 'applied' });
    const kept = await t.dataSource.query<{ user_id: number | null; state: string }[]>(
      "SELECT user_id, state FROM store_purchases WHERE platform = 'android' AND store_ref = $1",
      [token],
    );
    expect(kept).toEqual([{ user_id: null, state: 'SUBSCRIPTION_STATE_ACTIVE' }]);

    const id = await createUser(t.dataSource);
    await request(t.http)
      .post('/api/v1/subscription/verify')
      .set('Authorization', bearerFor(t, id))
      .send({ platform: 'android', token, product_id: 'service.max.monthly' })
      .expect(200);
    expect(await userRow(id)).toMatchObject({ premium_tier: 'max', premium_until: expiry });
  });

  it('answers 503 while the store cannot be read, records nothing, and applies the redelivery', async () => {
    const { userId, token } = await subscribedUser();
    answers.set(token, { status: 500 });
    const body = envelope(subscriptionEvent(token, 13));

    await push(body).expect(503);
    expect(await recorded(body.message.messageId)).toBe(0);

    answers.set(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', productId: 'service.pro.monthly', expiry: new Date(t.clock.nowMs() - 1) });
    await push(body).expect(200, { status: 'applied' });
    expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
  });

  it('acknowledges a test notification and a notification of another app without applying anything', async () => {
    await push(envelope({ version: '1.0', packageName: PACKAGE, testNotification: { version: '1.0' } })).expect(200, { status: 'ignored' });
    const { userId, token } = await subscribedUser();
    answers.set(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', productId: 'service.pro.monthly', expiry: new Date(t.clock.nowMs() - 1) });
    await push(envelope({ ...subscriptionEvent(token, 13), packageName: 'com.other.app' })).expect(200, { status: 'ignored' });
    expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro' });
  });

  describe('real envelopes', () => {
    it("applies a real RENEWED push (both spellings of messageId) with a real body of a license tester's purchase", async () => {
      const body = realJson('edufox-renewed-envelope.json') as { message: { messageId: string; data: string } };
      const token = (
        JSON.parse(Buffer.from(body.message.data, 'base64').toString('utf8')) as { subscriptionNotification: { purchaseToken: string } }
      ).subscriptionNotification.purchaseToken;
      answers.set(token, { body: realJson('reef-subscriptionsv2-expired-test-purchase.json') });
      await t.dataSource.query("DELETE FROM store_notifications WHERE platform = 'android' AND notification_id = $1", [
        body.message.messageId,
      ]);

      await push(body).expect(200, { status: 'applied' });
      await push({ ...body, message: { ...body.message, messageId: undefined } }).expect(200, { status: 'duplicate' });

      const [purchase] = await t.dataSource.query(
        "SELECT product_id, state, environment, transaction_id, expires_at, entitled_until FROM store_purchases WHERE platform = 'android' AND store_ref = $1",
        [token],
      );
      expect(purchase).toEqual({
        product_id: 'prometheus_pro',
        state: 'SUBSCRIPTION_STATE_EXPIRED',
        environment: 'sandbox',
        transaction_id: 'GPA.3315-1326-8982-37036..0',
        expires_at: new Date('2022-11-21T01:54:51.937Z'),
        entitled_until: null,
      });
    });

    it("acknowledges a real test notification of another app's package without reading the store", async () => {
      const before = play.requests.length;
      await push(realJson('reef-test-notification-envelope.json')).expect(200, { status: 'ignored' });
      expect(play.requests.length).toBe(before);
    });
  });

  describe('poison messages', () => {
    const rejectedCount = async () => {
      const metric = await t.app.get(Metrics).registry.getSingleMetric('store_notifications_total')!.get();
      return metric.values.find((value) => value.labels.store === 'google_play' && value.labels.outcome === 'rejected')?.value ?? 0;
    };

    it("acknowledges Google's own documentation example (data that is not JSON) once, with a warning and a count, instead of 4xx forever", async () => {
      const before = await rejectedCount();
      const body = realJson('docs-example-envelope.json') as { message: { messageId: string } };

      await push(body).expect(200, { status: 'rejected' });

      expect(await rejectedCount()).toBe(before + 1);
      expect(await recorded(body.message.messageId)).toBe(0);
    });

    it('acknowledges an envelope without messageId, with data that is not base64 JSON, or with a purchase token that is not a string', async () => {
      await push({ message: { data: Buffer.from('{}').toString('base64') } }).expect(200, { status: 'rejected' });
      await push({ message: { data: '!!!not json', messageId: unique('m') } }).expect(200, { status: 'rejected' });
      await push({ message: { data: Buffer.from('[1]').toString('base64'), messageId: unique('m') } }).expect(200, { status: 'rejected' });
      await push(envelope({ packageName: PACKAGE, subscriptionNotification: { notificationType: 2, purchaseToken: 42 } })).expect(200, {
        status: 'rejected',
      });
    });
  });

  describe('plan changes (linkedPurchaseToken)', () => {
    it("keeps the user when the old purchase's EXPIRED arrives before the app verified the new one", async () => {
      const { userId, token: oldToken } = await subscribedUser('max');
      const newToken = unique('upgraded');
      const newExpiry = new Date(t.clock.nowMs() + 30 * DAY_MS);
      answers.set(newToken, {
        state: 'SUBSCRIPTION_STATE_ACTIVE',
        productId: 'service.pro.monthly',
        expiry: newExpiry,
        linkedPurchaseToken: oldToken,
      });
      const changedAt = t.clock.nowMs() - 2000;

      // PURCHASED of the new token: it belongs to the old token's user and replaces it.
      await push(envelope(subscriptionEvent(newToken, 4, changedAt))).expect(200, { status: 'applied' });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_until: newExpiry, downgraded_at: new Date(changedAt) });

      // The old token's EXPIRED, before any verify of the new one.
      answers.set(oldToken, {
        state: 'SUBSCRIPTION_STATE_EXPIRED',
        productId: 'service.max.monthly',
        expiry: new Date(t.clock.nowMs() - 1000),
      });
      await push(envelope(subscriptionEvent(oldToken, 13))).expect(200, { status: 'applied' });

      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_until: newExpiry });
      const purchases = await t.dataSource.query<{ store_ref: string; user_id: number; superseded: boolean }[]>(
        "SELECT store_ref, user_id, superseded_at IS NOT NULL AS superseded FROM store_purchases WHERE platform = 'android' AND store_ref = ANY($1) ORDER BY id",
        [[oldToken, newToken]],
      );
      expect(purchases).toEqual([
        { store_ref: oldToken, user_id: userId, superseded: true },
        { store_ref: newToken, user_id: userId, superseded: false },
      ]);
    });

    it('binds the new purchase when the app verifies the old one after the store reported the change', async () => {
      const oldToken = unique('old');
      const newToken = unique('new');
      answers.set(newToken, {
        state: 'SUBSCRIPTION_STATE_ACTIVE',
        productId: 'service.max.monthly',
        expiry: new Date(t.clock.nowMs() + 30 * DAY_MS),
        linkedPurchaseToken: oldToken,
      });
      await push(envelope(subscriptionEvent(newToken, 4))).expect(200, { status: 'applied' });

      const id = await createUser(t.dataSource);
      answers.set(oldToken, {
        state: 'SUBSCRIPTION_STATE_EXPIRED',
        productId: 'service.pro.monthly',
        expiry: new Date(t.clock.nowMs() - 1000),
      });
      await request(t.http)
        .post('/api/v1/subscription/verify')
        .set('Authorization', bearerFor(t, id))
        .send({ platform: 'android', token: oldToken, product_id: 'service.pro.monthly' })
        .expect(200);

      expect(await userRow(id)).toMatchObject({ premium_tier: 'max' });
    });
  });

  describe('authentication', () => {
    async function expectRefused(token: string | undefined, query = '') {
      const { userId, token: purchase } = await subscribedUser();
      answers.set(purchase, {
        state: 'SUBSCRIPTION_STATE_EXPIRED',
        productId: 'service.pro.monthly',
        expiry: new Date(t.clock.nowMs() - 1),
      });
      const body = envelope(subscriptionEvent(purchase, 13));
      let req = request(t.http).post(`/internal/store-b-notifications${query}`);
      if (token !== undefined) req = req.set('Authorization', `Bearer ${token}`);
      const res = await req.send(body).expect(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHORIZED' });
      expect(await recorded(body.message.messageId)).toBe(0);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro' });
    }

    it('refuses a push without a token', async () => expectRefused(undefined));
    it('refuses a token for another audience', async () => expectRefused(await oidcToken({ aud: 'https://other.example.com/push' })));
    it('refuses a token of another service account', async () =>
      expectRefused(await oidcToken({ email: 'intruder@example.iam.gserviceaccount.com' })));
    it('refuses an unverified email', async () => expectRefused(await oidcToken({ emailVerified: false })));
    it('refuses a token signed with another key (forged signature)', async () => expectRefused(await oidcToken({}, otherKey.privateKey)));
    it('refuses a wrong shared secret', async () => expectRefused(undefined, '?token=wrong-secret'));

    it("answers 503, not 401, while Google's signing certificates cannot be fetched, and accepts the redelivery", async () => {
      const { userId, token } = await subscribedUser();
      answers.set(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', productId: 'service.pro.monthly', expiry: new Date(t.clock.nowMs() - 1) });
      const body = envelope(subscriptionEvent(token, 13));
      // A key id the client has not cached yet makes it fetch the certificates.
      const freshToken = await new SignJWT({ email: PUSH_EMAIL, email_verified: true })
        .setProtectedHeader({ alg: 'RS256', kid: 'rotated-key', typ: 'JWT' })
        .setIssuer('https://accounts.google.com')
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(signingKey.privateKey);
      certsDown = true;
      try {
        const res = await request(t.http)
          .post('/internal/store-b-notifications')
          .set('Authorization', `Bearer ${freshToken}`)
          .send(body)
          .expect(503);
        expect(res.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      } finally {
        certsDown = false;
      }
      expect(await recorded(body.message.messageId)).toBe(0);
      await push(body).expect(200, { status: 'applied' });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
    });

    it('accepts the shared secret in the query instead of a token', async () => {
      const { userId, token } = await subscribedUser();
      answers.set(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', productId: 'service.pro.monthly', expiry: new Date(t.clock.nowMs() - 1) });
      await request(t.http)
        .post(`/internal/store-b-notifications?token=${SHARED_SECRET}`)
        .send(envelope(subscriptionEvent(token, 13)))
        .expect(200, { status: 'applied' });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
    });
  });
});
