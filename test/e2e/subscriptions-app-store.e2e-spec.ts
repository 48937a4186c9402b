import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { AppleSigningChain } from '../support/apple-store-doubles';
import { bearerFor, createUser } from '../support/fixtures';
import { type HttpDouble, sendJson, startHttpDouble } from '../support/http-double';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const DAY_MS = 24 * 60 * 60 * 1000;
const BUNDLE = 'com.example.briefing';
const APP_APPLE_ID = 1234567890;
const STATUS_PATH = '/inApps/v1/subscriptions/';

/** What the App Store Server API double answers for an original transaction id. */
type ApiAnswer = { httpStatus: number } | { status: number; transaction: string; renewal?: string };

describe('iOS store: verify and POST /internal/store-a-notifications', () => {
  let t: TestApp;
  let api: HttpDouble;
  let dir: string;
  const chain = new AppleSigningChain();
  const foreignChain = new AppleSigningChain();
  const answers = new Map<string, ApiAnswer>();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'apple-roots-'));
    const rootPath = path.join(dir, 'root.cer');
    writeFileSync(rootPath, chain.root.der);
    const apiKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    api = await startHttpDouble((req: IncomingMessage, res: ServerResponse) => {
      if (!req.headers.authorization?.startsWith('Bearer ey')) return sendJson(res, 401, {});
      const id = decodeURIComponent((req.url ?? '').slice(STATUS_PATH.length).split('?')[0]);
      const answer = answers.get(id);
      if (!answer) return sendJson(res, 404, { errorCode: 4040010, errorMessage: 'Transaction id not found.' });
      if ('httpStatus' in answer) return sendJson(res, answer.httpStatus, { errorCode: 5000000, errorMessage: 'error' });
      sendJson(res, 200, {
        environment: 'Sandbox',
        bundleId: BUNDLE,
        appAppleId: APP_APPLE_ID,
        data: [
          {
            subscriptionGroupIdentifier: '21000000',
            lastTransactions: [
              {
                status: answer.status,
                originalTransactionId: id,
                signedTransactionInfo: answer.transaction,
                signedRenewalInfo: answer.renewal,
              },
            ],
          },
        ],
      });
    });
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      env: {
        APPLE_BUNDLE_ID: BUNDLE,
        APPLE_APP_APPLE_ID: String(APP_APPLE_ID),
        APPLE_ENVIRONMENT: 'Sandbox',
        APPLE_ISSUER_ID: '57246542-96fe-1a63-e053-0824d011072a',
        APPLE_KEY_ID: 'TESTKEY123',
        APPLE_PRIVATE_KEY: apiKey,
        APPLE_ROOT_CERTIFICATES: rootPath,
        // The generated chain has no OCSP responder.
        APPLE_ONLINE_CHECKS: 'false',
        APPLE_API_BASE_URL: api.url,
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    t.clock.set(new Date());
    answers.clear();
  });

  let seq = 0;
  const newOriginalId = () => String(2_000_000_000_000 + Date.now() * 10 + ++seq);

  function transaction(
    originalTransactionId: string,
    fields: { productId?: string; expires?: number; revoked?: boolean; bundleId?: string } = {},
    signer = chain,
  ): Promise<string> {
    const now = t.clock.nowMs();
    return signer.sign({
      transactionId: String(Number(originalTransactionId) + 1),
      originalTransactionId,
      bundleId: fields.bundleId ?? BUNDLE,
      productId: fields.productId ?? 'service.pro.monthly',
      purchaseDate: now - DAY_MS,
      expiresDate: fields.expires ?? now + 30 * DAY_MS,
      type: 'Auto-Renewable Subscription',
      inAppOwnershipType: 'PURCHASED',
      signedDate: now,
      environment: 'Sandbox',
      ...(fields.revoked ? { revocationDate: now - 1000, revocationReason: 0 } : {}),
    });
  }
  const renewalInfo = (originalTransactionId: string, graceEnd?: number) =>
    chain.sign({
      originalTransactionId,
      autoRenewProductId: 'service.pro.monthly',
      productId: 'service.pro.monthly',
      autoRenewStatus: 1,
      signedDate: t.clock.nowMs(),
      environment: 'Sandbox',
      ...(graceEnd ? { gracePeriodExpiresDate: graceEnd, isInBillingRetryPeriod: true } : {}),
    });
  async function notification(
    type: string,
    data: { transaction?: string; renewal?: string; bundleId?: string },
    options: { subtype?: string; uuid?: string; signer?: AppleSigningChain } = {},
  ): Promise<string> {
    return (options.signer ?? chain).sign({
      notificationType: type,
      ...(options.subtype ? { subtype: options.subtype } : {}),
      notificationUUID: options.uuid ?? randomUUID(),
      version: '2.0',
      signedDate: t.clock.nowMs(),
      data: {
        appAppleId: APP_APPLE_ID,
        bundleId: data.bundleId ?? BUNDLE,
        environment: 'Sandbox',
        signedTransactionInfo: data.transaction,
        signedRenewalInfo: data.renewal,
        status: 1,
      },
    });
  }

  const bearer = (userId: number) => bearerFor(t, userId);
  const verify = (userId: number, token: string, productId = 'service.pro.monthly') =>
    request(t.http)
      .post('/api/v1/subscription/verify')
      .set('Authorization', bearer(userId))
      .send({ platform: 'ios', token, product_id: productId });
  const notify = (signedPayload: string) => request(t.http).post('/internal/store-a-notifications').send({ signedPayload });
  const userRow = async (userId: number) =>
    (
      await t.dataSource.query<
        {
          premium_tier: string;
          premium_until: Date | null;
          premium_platform: string | null;
          premium_tx_ref: string | null;
          downgraded_at: Date | null;
        }[]
      >('SELECT premium_tier, premium_until, premium_platform, premium_tx_ref, downgraded_at FROM users WHERE id = $1', [userId])
    )[0];
  const limits = async (userId: number) => {
    const quota = await request(t.http).get('/api/v1/quota').set('Authorization', bearer(userId)).expect(200);
    const capacity = await request(t.http).get('/api/v1/watchlist/capacity').set('Authorization', bearer(userId)).expect(200);
    return { tier: quota.body.tier as string, weekly: quota.body.weekly_limit as number, capacity: capacity.body.capacity as number };
  };

  /** A user holding an active pro subscription verified through the store. */
  async function subscriber(productId = 'service.pro.monthly'): Promise<{ userId: number; originalId: string }> {
    const userId = await createUser(t.dataSource);
    const originalId = newOriginalId();
    answers.set(originalId, { status: 1, transaction: await transaction(originalId, { productId }) });
    await verify(userId, await transaction(originalId, { productId }), productId).expect(200);
    return { userId, originalId };
  }

  describe('verify', () => {
    it('grants the tier of the current transaction from getAllSubscriptionStatuses', async () => {
      const userId = await createUser(t.dataSource);
      const originalId = newOriginalId();
      const expires = t.clock.nowMs() + 20 * DAY_MS;
      answers.set(originalId, { status: 1, transaction: await transaction(originalId, { productId: 'service.max.monthly', expires }) });

      // The app's (older) transaction names pro; the store's current state says max.
      const res = await verify(userId, await transaction(originalId)).expect(200);

      expect(res.body).toEqual({
        active: true,
        tier: 'max',
        premium_until: new Date(expires).toISOString(),
        product_id: 'service.max.monthly',
      });
      expect(await userRow(userId)).toMatchObject({
        premium_tier: 'max',
        premium_until: new Date(expires),
        premium_platform: 'ios',
        premium_tx_ref: originalId,
      });
      expect(await limits(userId)).toEqual({ tier: 'max', weekly: 200, capacity: 100 });
    });

    it('keeps service until gracePeriodExpiresDate in the billing grace period', async () => {
      const userId = await createUser(t.dataSource);
      const originalId = newOriginalId();
      const graceEnd = t.clock.nowMs() + 6 * DAY_MS;
      answers.set(originalId, {
        status: 4,
        transaction: await transaction(originalId, { expires: t.clock.nowMs() - DAY_MS }),
        renewal: await renewalInfo(originalId, graceEnd),
      });
      const res = await verify(userId, await transaction(originalId)).expect(200);
      expect(res.body).toMatchObject({ active: true, tier: 'pro', premium_until: new Date(graceEnd).toISOString() });
    });

    it.each([
      ['expired', 2, {}],
      ['revoked (refunded)', 5, { revoked: true }],
    ])('answers inactive for a subscription %s and grants nothing', async (_label, status, fields) => {
      const userId = await createUser(t.dataSource);
      const originalId = newOriginalId();
      const expires = status === 2 ? t.clock.nowMs() - DAY_MS : undefined;
      answers.set(originalId, { status, transaction: await transaction(originalId, { ...fields, expires }) });
      await verify(userId, await transaction(originalId)).expect(200, { active: false, tier: 'none' });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', premium_until: null });
    });

    it("answers the user's entitlement: an expired iOS purchase leaves the pro of an Android purchase", async () => {
      const androidUntil = new Date(t.clock.nowMs() + 12 * DAY_MS);
      const userId = await createUser(t.dataSource, { tier: 'pro', until: androidUntil, txRef: 'android-purchase-token' });
      const originalId = newOriginalId();
      answers.set(originalId, { status: 2, transaction: await transaction(originalId, { expires: t.clock.nowMs() - DAY_MS }) });

      await verify(userId, await transaction(originalId)).expect(200, {
        active: true,
        tier: 'pro',
        premium_until: androidUntil.toISOString(),
        product_id: 'service.pro.monthly',
      });
      expect(await userRow(userId)).toMatchObject({
        premium_tier: 'pro',
        premium_platform: 'android',
        premium_tx_ref: 'android-purchase-token',
      });
    });

    it('402 for a transaction signed by another chain (forged), before asking Apple', async () => {
      const userId = await createUser(t.dataSource);
      const originalId = newOriginalId();
      answers.set(originalId, { status: 1, transaction: await transaction(originalId) });
      const before = api.requests.length;
      const res = await verify(userId, await transaction(originalId, {}, foreignChain)).expect(402);
      expect(res.body).toMatchObject({ code: 'SUBSCRIPTION_INVALID' });
      expect(api.requests.length).toBe(before);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
    });

    it('402 for a transaction of another bundle, a garbage token, and one Apple does not know', async () => {
      const userId = await createUser(t.dataSource);
      const originalId = newOriginalId();
      answers.set(originalId, { status: 1, transaction: await transaction(originalId) });
      await verify(userId, await transaction(originalId, { bundleId: 'com.other.app' })).expect(402);
      await verify(userId, 'not-a-jws').expect(402);
      await verify(userId, await transaction(newOriginalId())).expect(402);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
    });

    it('503 when the App Store Server API fails; nothing granted', async () => {
      const userId = await createUser(t.dataSource);
      const originalId = newOriginalId();
      answers.set(originalId, { httpStatus: 500 });
      const res = await verify(userId, await transaction(originalId)).expect(503);
      expect(res.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
    });

    it('409 for a valid transaction of a product the service does not sell', async () => {
      const userId = await createUser(t.dataSource);
      const originalId = newOriginalId();
      answers.set(originalId, { status: 1, transaction: await transaction(originalId, { productId: 'other.yearly' }) });
      await verify(userId, await transaction(originalId)).expect(409);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
    });
  });

  describe('notifications', () => {
    it('DID_RENEW refreshes premium_until', async () => {
      const { userId, originalId } = await subscriber();
      const renewed = t.clock.nowMs() + 60 * DAY_MS;
      await notify(await notification('DID_RENEW', { transaction: await transaction(originalId, { expires: renewed }) })).expect(200, {
        status: 'applied',
      });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_until: new Date(renewed) });
    });

    it('DID_CHANGE_RENEWAL_PREF (upgrade) moves the user to max at once', async () => {
      const { userId, originalId } = await subscriber();
      await notify(
        await notification(
          'DID_CHANGE_RENEWAL_PREF',
          { transaction: await transaction(originalId, { productId: 'service.max.monthly' }) },
          { subtype: 'UPGRADE' },
        ),
      ).expect(200);
      expect(await limits(userId)).toEqual({ tier: 'max', weekly: 200, capacity: 100 });
    });

    it('DID_FAIL_TO_RENEW with GRACE_PERIOD keeps service until the grace expiry, GRACE_PERIOD_EXPIRED ends it', async () => {
      const { userId, originalId } = await subscriber();
      const graceEnd = t.clock.nowMs() + 16 * DAY_MS;
      const lapsed = await transaction(originalId, { expires: t.clock.nowMs() - 1000 });
      await notify(
        await notification(
          'DID_FAIL_TO_RENEW',
          { transaction: lapsed, renewal: await renewalInfo(originalId, graceEnd) },
          { subtype: 'GRACE_PERIOD' },
        ),
      ).expect(200);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_until: new Date(graceEnd), downgraded_at: null });
      expect(await limits(userId)).toEqual({ tier: 'pro', weekly: 60, capacity: 30 });

      t.clock.set(new Date(graceEnd + 60_000));
      answers.set(originalId, { status: 2, transaction: lapsed });
      await notify(
        await notification('GRACE_PERIOD_EXPIRED', { transaction: lapsed, renewal: await renewalInfo(originalId, graceEnd) }),
      ).expect(200);
      // The downgrade took effect when the grace period ended.
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', downgraded_at: new Date(graceEnd) });
      expect(await limits(userId)).toEqual({ tier: 'none', weekly: 10, capacity: 3 });
    });

    it('DID_FAIL_TO_RENEW without a grace period ends service at the lapsed expiry', async () => {
      const { userId, originalId } = await subscriber();
      const expires = t.clock.nowMs() - 1000;
      const lapsed = await transaction(originalId, { expires });
      // What getAllSubscriptionStatuses then says: billing retry, not serving.
      answers.set(originalId, { status: 3, transaction: lapsed });
      await notify(await notification('DID_FAIL_TO_RENEW', { transaction: lapsed, renewal: await renewalInfo(originalId) })).expect(200);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', downgraded_at: new Date(expires) });
    });

    it('acknowledges a type that changes no entitlement (PRICE_INCREASE) and records it', async () => {
      const { userId, originalId } = await subscriber();
      const uuid = randomUUID();
      const payload = await notification('PRICE_INCREASE', { transaction: await transaction(originalId, { expires: 1 }) }, { uuid });
      await notify(payload).expect(200, { status: 'ignored' });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro' });
      await notify(payload).expect(200, { status: 'duplicate' });
    });

    it.each(['EXPIRED', 'REFUND', 'REVOKE'])('%s withdraws the entitlement and records the downgrade', async (type) => {
      const { userId, originalId } = await subscriber('service.max.monthly');
      const revoked = type !== 'EXPIRED';
      const signed = await transaction(originalId, { productId: 'service.max.monthly', revoked });
      // Apple's status API confirms the withdrawal before it is applied.
      answers.set(originalId, { status: revoked ? 5 : 2, transaction: signed });
      await notify(await notification(type, { transaction: signed })).expect(200, { status: 'applied' });
      // A refund or revocation dates the downgrade at its revocationDate.
      const droppedAt = revoked ? new Date(t.clock.nowMs() - 1000) : t.clock.now();
      expect(await userRow(userId)).toMatchObject({
        premium_tier: 'none',
        premium_until: null,
        premium_tx_ref: null,
        downgraded_at: droppedAt,
      });
      expect(await limits(userId)).toEqual({ tier: 'none', weekly: 10, capacity: 3 });
    });

    it('acknowledges a repeated notificationUUID without applying it again', async () => {
      const { userId, originalId } = await subscriber();
      const uuid = randomUUID();
      await notify(await notification('DID_RENEW', { transaction: await transaction(originalId) }, { uuid })).expect(200, {
        status: 'applied',
      });
      await notify(await notification('EXPIRED', { transaction: await transaction(originalId) }, { uuid })).expect(200, {
        status: 'duplicate',
      });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro' });
      const rows = await t.dataSource.query("SELECT 1 FROM store_notifications WHERE platform = 'ios' AND notification_id = $1", [uuid]);
      expect(rows).toHaveLength(1);
    });

    it('keeps SUBSCRIBED for a transaction never verified, and a later verify binds it', async () => {
      const originalId = newOriginalId();
      await notify(await notification('SUBSCRIBED', { transaction: await transaction(originalId) }, { subtype: 'INITIAL_BUY' })).expect(
        200,
        { status: 'applied' },
      );
      const kept = await t.dataSource.query<{ user_id: number | null }[]>(
        "SELECT user_id FROM store_purchases WHERE platform = 'ios' AND store_ref = $1",
        [originalId],
      );
      expect(kept).toEqual([{ user_id: null }]);

      const userId = await createUser(t.dataSource);
      answers.set(originalId, { status: 1, transaction: await transaction(originalId) });
      await verify(userId, await transaction(originalId)).expect(200);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_tx_ref: originalId });
    });

    it.each([
      [
        'a forged signature',
        async (originalId: string) => notification('EXPIRED', { transaction: await transaction(originalId) }, { signer: foreignChain }),
      ],
      [
        'another bundle',
        async (originalId: string) => notification('EXPIRED', { transaction: await transaction(originalId), bundleId: 'com.other.app' }),
      ],
      [
        'a forged transaction inside a genuine payload',
        async (originalId: string) => notification('EXPIRED', { transaction: await transaction(originalId, {}, foreignChain) }),
      ],
    ])('refuses %s with 401 and changes nothing', async (_label, build) => {
      const { userId, originalId } = await subscriber();
      await notify(await build(originalId)).expect(401);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro' });
    });

    it('400 without a signedPayload', async () => {
      await request(t.http).post('/internal/store-a-notifications').send({}).expect(400);
    });
  });

  describe('downgrade after a lapse (the usual production order: premium_until passes, the store reports later)', () => {
    const STOCKS = ['30000001', '30000002', '30000003', '30000004', '30000005'];
    const readWatchlist = async (userId: number) =>
      (await request(t.http).get('/api/v1/watchlist').set('Authorization', bearer(userId)).expect(200)).body.map(
        (entry: { corp_code: string }) => entry.corp_code,
      );

    beforeAll(async () => {
      await t.dataSource.query(
        `INSERT INTO stocks (corp_code, corp_name, stock_code, market_type)
         SELECT code, 'company ' || code, right(code, 6), 'Y' FROM unnest($1::text[]) AS s (code)`,
        [STOCKS],
      );
    });

    /** A max subscriber (verified through the store) who watches all five stocks, the first one oldest. */
    async function maxSubscriberWatchingFive(): Promise<{ userId: number; originalId: string; until: number }> {
      const { userId, originalId } = await subscriber('service.max.monthly');
      for (const corpCode of STOCKS) {
        await request(t.http).post('/api/v1/watchlist').set('Authorization', bearer(userId)).send({ corp_code: corpCode }).expect(201);
      }
      const { premium_until } = await userRow(userId);
      return { userId, originalId, until: premium_until!.getTime() };
    }

    it('records the downgrade when EXPIRED arrives after premium_until, and trims to 3, oldest first, 7 days after that', async () => {
      const { userId, originalId, until } = await maxSubscriberWatchingFive();
      const lapsed = await transaction(originalId, { productId: 'service.max.monthly', expires: until });

      t.clock.set(new Date(until + 2 * DAY_MS));
      answers.set(originalId, { status: 2, transaction: lapsed });
      await notify(await notification('EXPIRED', { transaction: lapsed })).expect(200, { status: 'applied' });
      // The downgrade took effect at premium_until, however late the store reports it.
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', premium_until: null, downgraded_at: new Date(until) });

      t.clock.set(new Date(until + 7 * DAY_MS - 1));
      expect(await readWatchlist(userId)).toEqual([...STOCKS].reverse());

      t.clock.set(new Date(until + 7 * DAY_MS));
      expect(await readWatchlist(userId)).toEqual(STOCKS.slice(2).reverse());
      expect((await userRow(userId)).downgraded_at).toBeNull();
    });

    it('keeps the moment of the lapse a watchlist read recorded when the store reports it later', async () => {
      const { userId, originalId, until } = await maxSubscriberWatchingFive();

      t.clock.set(new Date(until + DAY_MS));
      expect(await readWatchlist(userId)).toHaveLength(5);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', downgraded_at: new Date(until) });

      t.clock.set(new Date(until + 3 * DAY_MS));
      const lapsed = await transaction(originalId, { productId: 'service.max.monthly', expires: until });
      answers.set(originalId, { status: 2, transaction: lapsed });
      await notify(await notification('EXPIRED', { transaction: lapsed })).expect(200, { status: 'applied' });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', premium_tx_ref: null, downgraded_at: new Date(until) });

      t.clock.set(new Date(until + 7 * DAY_MS));
      expect(await readWatchlist(userId)).toEqual(STOCKS.slice(2).reverse());
    });
  });
});
