import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuth2Client } from 'google-auth-library';
import { SignJWT } from 'jose';
import request from 'supertest';
import { GOOGLE_PLAY_AUTH } from '../../src/subscriptions/stores/google-play.client';
import { bearerFor, createUser } from '../support/fixtures';
import { type HttpDouble, sendJson, startHttpDouble } from '../support/http-double';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const DAY_MS = 24 * 60 * 60 * 1000;
const PACKAGE = 'com.example.briefing';
const AUDIENCE = 'https://api.example.com/internal/store-b-notifications';
const PUSH_EMAIL = 'play-push@example-project.iam.gserviceaccount.com';
const SHARED_SECRET = 'shared-secret-of-the-push-endpoint';
const PURCHASE_PATH = `/androidpublisher/v3/applications/${PACKAGE}/purchases/subscriptionsv2/tokens/`;
const KEY_ID = 'test-key-1';

type PlayAnswer = { status: number } | { state: string; productId: string; expiry: Date };

describe('POST /internal/store-b-notifications (Pub/Sub push of the Android store)', () => {
  let t: TestApp;
  let play: HttpDouble;
  let certs: HttpDouble;
  const answers = new Map<string, PlayAnswer>();
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 });

  beforeAll(async () => {
    play = await startHttpDouble((req: IncomingMessage, res: ServerResponse) => {
      const answer = answers.get(decodeURIComponent((req.url ?? '').slice(PURCHASE_PATH.length).split('?')[0]));
      if (!answer) return sendJson(res, 404, { error: { code: 404 } });
      if ('status' in answer) return sendJson(res, answer.status, { error: { code: answer.status } });
      sendJson(res, 200, {
        subscriptionState: answer.state,
        lineItems: [{ productId: answer.productId, expiryTime: answer.expiry.toISOString() }],
      });
    });
    // Google's certificate endpoint: PEM per key id.
    certs = await startHttpDouble((_req, res) =>
      sendJson(res, 200, { [KEY_ID]: signingKey.publicKey.export({ type: 'spki', format: 'pem' }) }),
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
  const subscriptionEvent = (purchaseToken: string, notificationType: number) => ({
    version: '1.0',
    packageName: PACKAGE,
    eventTimeMillis: String(Date.now()),
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
    answers.set(token, { state: 'SUBSCRIPTION_STATE_ACTIVE', productId: `service.${tier}.monthly`, expiry: new Date(t.clock.nowMs() + 5 * DAY_MS) });
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
    (
      await request(t.http)
        .get('/api/v1/quota')
        .set('Authorization', bearerFor(t, userId))
        .expect(200)
    ).body as { tier: string; weekly_limit: number };
  const recorded = async (messageId: string) =>
    (await t.dataSource.query("SELECT 1 FROM store_notifications WHERE platform = 'android' AND notification_id = $1", [messageId]))
      .length;

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
    answers.set(token, { state, productId: 'service.pro.monthly', expiry: new Date(t.clock.nowMs() - 1000) });

    await push(envelope(subscriptionEvent(token, type))).expect(200);

    expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', premium_until: null, downgraded_at: t.clock.now() });
    expect(await quotaOf(userId)).toMatchObject({ tier: 'none', weekly_limit: 10 });
  });

  it('a voided purchase (refund) withdraws the entitlement', async () => {
    const { userId, token } = await subscribedUser();
    const res = await push(
      envelope({ version: '1.0', packageName: PACKAGE, eventTimeMillis: '1', voidedPurchaseNotification: { purchaseToken: token, refundType: 1 } }),
    ).expect(200);
    expect(res.body).toEqual({ status: 'applied' });
    expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
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

  it('400 for an envelope without messageId or with data that is not base64 JSON', async () => {
    await push({ message: { data: Buffer.from('{}').toString('base64') } }).expect(400);
    await push({ message: { data: '!!!not json', messageId: unique('m') } }).expect(400);
  });

  describe('authentication', () => {
    async function expectRefused(token: string | undefined, query = '') {
      const { userId, token: purchase } = await subscribedUser();
      answers.set(purchase, { state: 'SUBSCRIPTION_STATE_EXPIRED', productId: 'service.pro.monthly', expiry: new Date(t.clock.nowMs() - 1) });
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
    it('refuses a token of another service account', async () => expectRefused(await oidcToken({ email: 'intruder@example.iam.gserviceaccount.com' })));
    it('refuses an unverified email', async () => expectRefused(await oidcToken({ emailVerified: false })));
    it('refuses a token signed with another key (forged signature)', async () =>
      expectRefused(await oidcToken({}, otherKey.privateKey)));
    it('refuses a wrong shared secret', async () => expectRefused(undefined, '?token=wrong-secret'));

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
