import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuth2Client } from 'google-auth-library';
import request from 'supertest';
import { DowngradeCleanupService } from '../../src/watchlist/downgrade-cleanup.service';
import { GOOGLE_PLAY_AUTH } from '../../src/subscriptions/stores/google-play.client';
import { bearerFor, createUser } from '../support/fixtures';
import { type HttpDouble, sendJson, startHttpDouble } from '../support/http-double';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

const NOW = new Date('2026-11-18T03:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;
const PACKAGE = 'com.example.briefing';
const PLAY_ACCESS_TOKEN = 'play-access-token-of-the-test';
const PURCHASE_PATH = `/androidpublisher/v3/applications/${PACKAGE}/purchases/subscriptionsv2/tokens/`;

/** What the Play double answers for a purchase token: a subscriptionsv2 body or an HTTP error. */
type PlayAnswer = { status: number } | { state: string; productId: string; expiry: Date; linkedPurchaseToken?: string };

describe('subscriptions: POST /api/v1/subscription/verify (Android) and the downgrade cleanup', () => {
  let t: TestApp;
  let play: HttpDouble;
  const answers = new Map<string, PlayAnswer>();

  beforeAll(async () => {
    play = await startHttpDouble((req: IncomingMessage, res: ServerResponse) => {
      const url = req.url ?? '';
      if (req.method !== 'GET' || !url.startsWith(PURCHASE_PATH)) return sendJson(res, 404, { error: { code: 404 } });
      if (req.headers.authorization !== `Bearer ${PLAY_ACCESS_TOKEN}`) return sendJson(res, 401, { error: { code: 401 } });
      const answer = answers.get(decodeURIComponent(url.slice(PURCHASE_PATH.length).split('?')[0]));
      if (!answer) return sendJson(res, 404, { error: { code: 404, message: 'purchase token not found' } });
      if ('status' in answer) return sendJson(res, answer.status, { error: { code: answer.status } });
      sendJson(res, 200, {
        kind: 'androidpublisher#subscriptionPurchaseV2',
        subscriptionState: answer.state,
        linkedPurchaseToken: answer.linkedPurchaseToken,
        lineItems: [{ productId: answer.productId, expiryTime: answer.expiry.toISOString() }],
      });
    });
    // An auth client holding a token: the test checks the bearer reaches the store.
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: PLAY_ACCESS_TOKEN, expiry_date: Date.now() + 3_600_000 });
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      env: { GOOGLE_PLAY_PACKAGE_NAME: PACKAGE, GOOGLE_PLAY_API_BASE_URL: `${play.url}/` },
      overrides: [{ provide: GOOGLE_PLAY_AUTH, useValue: auth }],
    });
  });

  afterAll(async () => {
    await t?.close();
    await play?.close();
  });

  beforeEach(() => {
    t.clock.set(NOW);
    answers.clear();
  });

  const bearer = (userId: number) => bearerFor(t, userId);
  const verify = (userId: number, body: Record<string, unknown>) =>
    request(t.http).post('/api/v1/subscription/verify').set('Authorization', bearer(userId)).send(body);
  const android = (token: string, productId = 'service.pro.monthly') => ({ platform: 'android', token, product_id: productId });

  interface UserRow {
    premium_tier: string;
    premium_until: Date | null;
    premium_platform: string | null;
    premium_tx_ref: string | null;
    downgraded_at: Date | null;
    downgraded_from?: string | null;
  }
  const userRow = async (userId: number) =>
    (
      await t.dataSource.query<UserRow[]>(
        'SELECT premium_tier, premium_until, premium_platform, premium_tx_ref, downgraded_at, downgraded_from FROM users WHERE id = $1',
        [userId],
      )
    )[0];
  const limits = async (userId: number) => {
    const quota = await request(t.http).get('/api/v1/quota').set('Authorization', bearer(userId)).expect(200);
    const capacity = await request(t.http).get('/api/v1/watchlist/capacity').set('Authorization', bearer(userId)).expect(200);
    return { tier: quota.body.tier as string, weekly: quota.body.weekly_limit as number, capacity: capacity.body.capacity as number };
  };
  let tokenSeq = 0;
  const newToken = () => `purchase-token-${++tokenSeq}-${Date.now()}`;
  const expectUntouched = async (userId: number) =>
    expect(await userRow(userId)).toEqual({
      premium_tier: 'none',
      premium_until: null,
      premium_platform: null,
      premium_tx_ref: null,
      downgraded_at: null,
      downgraded_from: null,
    });

  describe('verify', () => {
    it('grants pro from an active purchase: tier, premium_until, platform and reference saved; quota 60 and capacity 30', async () => {
      const userId = await createUser(t.dataSource);
      const token = newToken();
      const expiry = new Date(NOW.getTime() + 30 * DAY_MS);
      answers.set(token, { state: 'SUBSCRIPTION_STATE_ACTIVE', productId: 'service.pro.monthly', expiry });

      const res = await verify(userId, android(token)).expect(200);

      expect(res.body).toEqual({ active: true, tier: 'pro', premium_until: expiry.toISOString(), product_id: 'service.pro.monthly' });
      expect(await userRow(userId)).toEqual({
        premium_tier: 'pro',
        premium_until: expiry,
        premium_platform: 'android',
        premium_tx_ref: token,
        downgraded_at: null,
        downgraded_from: null,
      });
      expect(await limits(userId)).toEqual({ tier: 'pro', weekly: 60, capacity: 30 });
      const [purchase] = await t.dataSource.query<{ user_id: number; product_id: string; state: string }[]>(
        "SELECT user_id, product_id, state FROM store_purchases WHERE platform = 'android' AND store_ref = $1",
        [token],
      );
      expect(purchase).toEqual({ user_id: userId, product_id: 'service.pro.monthly', state: 'SUBSCRIPTION_STATE_ACTIVE' });
    });

    it('takes the tier from the store product, not from the request product_id', async () => {
      const userId = await createUser(t.dataSource);
      const token = newToken();
      answers.set(token, {
        state: 'SUBSCRIPTION_STATE_ACTIVE',
        productId: 'service.max.monthly',
        expiry: new Date(NOW.getTime() + DAY_MS),
      });

      const res = await verify(userId, android(token, 'service.pro.monthly')).expect(200);

      expect(res.body).toMatchObject({ active: true, tier: 'max', product_id: 'service.max.monthly' });
      expect(await limits(userId)).toEqual({ tier: 'max', weekly: 200, capacity: 100 });
    });

    it.each([
      ['in grace', 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD'],
      ['canceled but not yet expired', 'SUBSCRIPTION_STATE_CANCELED'],
    ])('counts a purchase %s as active until its expiry', async (_label, state) => {
      const userId = await createUser(t.dataSource);
      const token = newToken();
      const expiry = new Date(NOW.getTime() + 2 * DAY_MS);
      answers.set(token, { state, productId: 'service.pro.monthly', expiry });

      const res = await verify(userId, android(token)).expect(200);

      expect(res.body).toEqual({ active: true, tier: 'pro', premium_until: expiry.toISOString(), product_id: 'service.pro.monthly' });
      t.clock.set(new Date(expiry.getTime() + 1));
      expect(await limits(userId)).toEqual({ tier: 'none', weekly: 10, capacity: 3 });
    });

    it.each([
      ['expired', 'SUBSCRIPTION_STATE_EXPIRED', 1],
      ['canceled and past its expiry', 'SUBSCRIPTION_STATE_CANCELED', -1],
      ['on hold', 'SUBSCRIPTION_STATE_ON_HOLD', 1],
    ])('answers inactive for a purchase %s and grants nothing', async (_label, state, expiryDays) => {
      const userId = await createUser(t.dataSource);
      const token = newToken();
      answers.set(token, { state, productId: 'service.pro.monthly', expiry: new Date(NOW.getTime() + expiryDays * DAY_MS) });

      const res = await verify(userId, android(token)).expect(200);

      expect(res.body).toEqual({ active: false, tier: 'none' });
      await expectUntouched(userId);
    });

    it('withdraws the entitlement of the same purchase when the store now reports it expired, and records the downgrade', async () => {
      const token = newToken();
      const userId = await createUser(t.dataSource, { tier: 'max', until: new Date(NOW.getTime() + 10 * DAY_MS), txRef: token });
      answers.set(token, {
        state: 'SUBSCRIPTION_STATE_EXPIRED',
        productId: 'service.max.monthly',
        expiry: new Date(NOW.getTime() - DAY_MS),
      });

      await verify(userId, android(token, 'service.max.monthly')).expect(200, { active: false, tier: 'none' });

      // The drop took effect when the store says the purchase ended, not when we heard of it.
      expect(await userRow(userId)).toMatchObject({
        premium_tier: 'none',
        premium_until: null,
        premium_tx_ref: null,
        downgraded_at: new Date(NOW.getTime() - DAY_MS),
      });
      expect(await limits(userId)).toEqual({ tier: 'none', weekly: 10, capacity: 3 });
    });

    it("answers the user's entitlement, not the purchase's: an expired purchase leaves the pro of another one", async () => {
      const until = new Date(NOW.getTime() + 10 * DAY_MS);
      const userId = await createUser(t.dataSource, { tier: 'pro', until, txRef: 'another-purchase' });
      const token = newToken();
      answers.set(token, {
        state: 'SUBSCRIPTION_STATE_EXPIRED',
        productId: 'service.pro.monthly',
        expiry: new Date(NOW.getTime() - DAY_MS),
      });

      await verify(userId, android(token)).expect(200, {
        active: true,
        tier: 'pro',
        premium_until: until.toISOString(),
        product_id: 'service.pro.monthly',
      });

      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_tx_ref: 'another-purchase', downgraded_at: null });
    });

    it('keeps the higher tier of two purchases in force until it ends, then the lower one, with the drop dated at its end', async () => {
      const maxUntil = new Date(NOW.getTime() + 5 * DAY_MS);
      const userId = await createUser(t.dataSource, { tier: 'max', until: maxUntil, txRef: newToken() });
      const token = newToken();
      const proUntil = new Date(NOW.getTime() + 60 * DAY_MS);
      answers.set(token, { state: 'SUBSCRIPTION_STATE_ACTIVE', productId: 'service.pro.monthly', expiry: proUntil });

      await verify(userId, android(token)).expect(200, {
        active: true,
        tier: 'max',
        premium_until: maxUntil.toISOString(),
        product_id: 'service.max.monthly',
      });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'max', downgraded_at: null });

      t.clock.set(new Date(maxUntil.getTime() + 30_000));
      await t.app.get(DowngradeCleanupService).runAll();
      expect(await userRow(userId)).toMatchObject({
        premium_tier: 'pro',
        premium_until: proUntil,
        premium_tx_ref: token,
        downgraded_at: maxUntil,
      });
      expect(await limits(userId)).toEqual({ tier: 'pro', weekly: 60, capacity: 30 });
    });

    it('sends the service-account bearer to the store and asks for the configured package', async () => {
      const userId = await createUser(t.dataSource);
      const token = newToken();
      answers.set(token, {
        state: 'SUBSCRIPTION_STATE_ACTIVE',
        productId: 'service.pro.monthly',
        expiry: new Date(NOW.getTime() + DAY_MS),
      });
      const before = play.requests.length;

      await verify(userId, android(token)).expect(200);

      const sent = play.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0].path.split('?')[0]).toBe(`${PURCHASE_PATH}${token}`);
      expect(sent[0].headers.authorization).toBe(`Bearer ${PLAY_ACCESS_TOKEN}`);
    });

    describe('errors grant nothing', () => {
      it.each([
        ['platform outside ios/android', { platform: 'web', token: 'x', product_id: 'service.pro.monthly' }],
        ['a missing token', { platform: 'android', product_id: 'service.pro.monthly' }],
        ['an empty token', { platform: 'android', token: '', product_id: 'service.pro.monthly' }],
        ['a missing product_id', { platform: 'android', token: 'x' }],
        ['a token that is not a string', { platform: 'android', token: 42, product_id: 'service.pro.monthly' }],
      ])('400 for %s', async (_label, body) => {
        const userId = await createUser(t.dataSource);
        const before = play.requests.length;
        const res = await verify(userId, body).expect(400);
        expect(res.body).toMatchObject({ statusCode: 400 });
        expect(play.requests.length).toBe(before);
        await expectUntouched(userId);
      });

      it('401 without a JWT', async () => {
        const res = await request(t.http).post('/api/v1/subscription/verify').send(android('x')).expect(401);
        expect(res.body).toMatchObject({ code: 'UNAUTHORIZED' });
      });

      it.each([404, 410, 400])('402 SUBSCRIPTION_INVALID when the store answers %i for the token', async (status) => {
        const userId = await createUser(t.dataSource);
        const token = newToken();
        answers.set(token, { status });
        const res = await verify(userId, android(token)).expect(402);
        expect(res.body).toMatchObject({ statusCode: 402, code: 'SUBSCRIPTION_INVALID' });
        await expectUntouched(userId);
        expect(await t.dataSource.query('SELECT 1 FROM store_purchases WHERE store_ref = $1', [token])).toEqual([]);
      });

      it('409 UNKNOWN_PRODUCT for a valid purchase of a product the service does not sell', async () => {
        const userId = await createUser(t.dataSource);
        const token = newToken();
        answers.set(token, {
          state: 'SUBSCRIPTION_STATE_ACTIVE',
          productId: 'other.gold.yearly',
          expiry: new Date(NOW.getTime() + DAY_MS),
        });
        const res = await verify(userId, android(token, 'other.gold.yearly')).expect(409);
        expect(res.body).toMatchObject({ statusCode: 409, code: 'UNKNOWN_PRODUCT' });
        await expectUntouched(userId);
      });

      it('409 UNKNOWN_PRODUCT when the request names a product the service does not sell', async () => {
        const userId = await createUser(t.dataSource);
        const token = newToken();
        answers.set(token, {
          state: 'SUBSCRIPTION_STATE_ACTIVE',
          productId: 'service.pro.monthly',
          expiry: new Date(NOW.getTime() + DAY_MS),
        });
        await verify(userId, android(token, 'service.ultra.monthly')).expect(409);
        await expectUntouched(userId);
      });

      it.each([500, 503, 401, 403])('503 STORE_UNAVAILABLE when the store answers %i', async (status) => {
        const userId = await createUser(t.dataSource);
        const token = newToken();
        answers.set(token, { status });
        const res = await verify(userId, android(token)).expect(503);
        expect(res.body).toMatchObject({ statusCode: 503, code: 'STORE_UNAVAILABLE' });
        await expectUntouched(userId);
      });

      it('503 STORE_NOT_CONFIGURED for iOS while the App Store is not configured', async () => {
        const userId = await createUser(t.dataSource);
        const res = await verify(userId, { platform: 'ios', token: 'eyJ.a.b', product_id: 'service.pro.monthly' }).expect(503);
        expect(res.body).toMatchObject({ code: 'STORE_NOT_CONFIGURED' });
        await expectUntouched(userId);
      });
    });

    describe('a purchase bound to another user', () => {
      it('moves to the verifying user and withdraws the previous user’s tier from it', async () => {
        const token = newToken();
        const expiry = new Date(NOW.getTime() + 20 * DAY_MS);
        answers.set(token, { state: 'SUBSCRIPTION_STATE_ACTIVE', productId: 'service.max.monthly', expiry });
        const first = await createUser(t.dataSource);
        const second = await createUser(t.dataSource);

        await verify(first, android(token, 'service.max.monthly')).expect(200);
        t.clock.advance(60_000);
        await verify(second, android(token, 'service.max.monthly')).expect(200);

        expect(await limits(first)).toEqual({ tier: 'none', weekly: 10, capacity: 3 });
        expect(await limits(second)).toEqual({ tier: 'max', weekly: 200, capacity: 100 });
        expect((await userRow(first)).downgraded_at).toEqual(t.clock.now());
        const owners = await t.dataSource.query<{ user_id: number }[]>('SELECT user_id FROM store_purchases WHERE store_ref = $1', [token]);
        expect(owners).toEqual([{ user_id: second }]);
      });

      it('entitles exactly one of two users verifying the same purchase at once', async () => {
        const token = newToken();
        answers.set(token, {
          state: 'SUBSCRIPTION_STATE_ACTIVE',
          productId: 'service.pro.monthly',
          expiry: new Date(NOW.getTime() + DAY_MS),
        });
        const users = await Promise.all([
          createUser(t.dataSource),
          createUser(t.dataSource),
          createUser(t.dataSource),
          createUser(t.dataSource),
        ]);

        const results = await Promise.all(users.map((userId) => verify(userId, android(token))));

        expect(results.map((res) => res.status)).toEqual([200, 200, 200, 200]);
        const [{ n }] = await t.dataSource.query<{ n: number }[]>(
          "SELECT count(*)::int AS n FROM users WHERE id = ANY($1) AND premium_tier = 'pro'",
          [users],
        );
        expect(n).toBe(1);
        const owners = await t.dataSource.query<{ user_id: number }[]>('SELECT user_id FROM store_purchases WHERE store_ref = $1', [token]);
        expect(owners).toHaveLength(1);
        const [holder] = await t.dataSource.query<{ id: number }[]>("SELECT id FROM users WHERE id = ANY($1) AND premium_tier = 'pro'", [
          users,
        ]);
        expect(owners[0].user_id).toBe(holder.id);
      });
    });
  });

  describe('downgrade cleanup', () => {
    const cleanup = () => t.app.get(DowngradeCleanupService);

    /** Adds `count` entries, the first one oldest; answers their corp codes oldest first. */
    async function addEntries(userId: number, count: number): Promise<string[]> {
      const codes: string[] = [];
      for (let i = 0; i < count; i++) {
        const code = String(10_000_000 + userId * 1000 + i);
        codes.push(code);
        await t.dataSource.query("INSERT INTO watch_stocks (user_id, corp_code, corp_name, created_at) VALUES ($1, $2, 'company', $3)", [
          userId,
          code,
          new Date(NOW.getTime() - (count - i) * 60_000),
        ]);
      }
      return codes;
    }
    const entryCodes = async (userId: number) =>
      (
        await t.dataSource.query<{ corp_code: string }[]>('SELECT corp_code FROM watch_stocks WHERE user_id = $1 ORDER BY created_at', [
          userId,
        ])
      ).map((row) => row.corp_code);
    const readWatchlist = (userId: number) => request(t.http).get('/api/v1/watchlist').set('Authorization', bearer(userId)).expect(200);

    /** A pro user with 5 entries whose purchase the store then reports expired at NOW. */
    async function downgradedUser(): Promise<{ userId: number; codes: string[]; token: string }> {
      const token = newToken();
      const userId = await createUser(t.dataSource, { tier: 'pro', until: new Date(NOW.getTime() + 10 * DAY_MS), txRef: token });
      const codes = await addEntries(userId, 5);
      // The store says it ended at NOW (cancelled early), which is then the downgrade moment.
      answers.set(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', productId: 'service.pro.monthly', expiry: NOW });
      await verify(userId, android(token)).expect(200);
      expect((await userRow(userId)).downgraded_at).toEqual(NOW);
      return { userId, codes, token };
    }

    it('keeps every entry until 7 days after the downgrade, then removes the oldest, leaving exactly the capacity', async () => {
      const { userId, codes } = await downgradedUser();

      t.clock.set(new Date(NOW.getTime() + 7 * DAY_MS - 1));
      await cleanup().runAll();
      expect(await entryCodes(userId)).toEqual(codes);
      expect((await userRow(userId)).downgraded_at).toEqual(NOW);

      t.clock.set(new Date(NOW.getTime() + 7 * DAY_MS));
      await cleanup().runAll();
      expect(await entryCodes(userId)).toEqual(codes.slice(2));
      expect((await userRow(userId)).downgraded_at).toBeNull();
    });

    it('trims once, to exactly the capacity, when the job and reads settle the same user at once', async () => {
      const { userId, codes } = await downgradedUser();
      t.clock.set(new Date(NOW.getTime() + 7 * DAY_MS));

      const removed = await Promise.all([cleanup().settle(userId), cleanup().settle(userId), cleanup().settle(userId)]);

      expect(removed.sort()).toEqual([0, 0, 2]);
      expect(await entryCodes(userId)).toEqual(codes.slice(2));
      expect((await userRow(userId)).downgraded_at).toBeNull();
    });

    it('also cleans up after 7 days on a watchlist read, before the daily job', async () => {
      const { userId, codes } = await downgradedUser();

      t.clock.set(new Date(NOW.getTime() + 6 * DAY_MS));
      expect((await readWatchlist(userId)).body).toHaveLength(5);

      t.clock.set(new Date(NOW.getTime() + 8 * DAY_MS));
      const res = await readWatchlist(userId);
      expect(res.body.map((entry: { corp_code: string }) => entry.corp_code)).toEqual(codes.slice(2).reverse());
      const capacity = await request(t.http).get('/api/v1/watchlist/capacity').set('Authorization', bearer(userId)).expect(200);
      expect(capacity.body).toEqual({ capacity: 3, used: 3, remaining: 0 });
    });

    it('cancels the pending cleanup when the user upgrades again before the 7 days', async () => {
      const { userId, codes, token } = await downgradedUser();

      t.clock.set(new Date(NOW.getTime() + 3 * DAY_MS));
      answers.set(token, {
        state: 'SUBSCRIPTION_STATE_ACTIVE',
        productId: 'service.pro.monthly',
        expiry: new Date(NOW.getTime() + 40 * DAY_MS),
      });
      await verify(userId, android(token)).expect(200);
      expect((await userRow(userId)).downgraded_at).toBeNull();

      t.clock.set(new Date(NOW.getTime() + 8 * DAY_MS));
      await cleanup().runAll();
      await readWatchlist(userId);
      expect(await entryCodes(userId)).toEqual(codes);
    });

    it('records an expiry nobody reported when a watchlist read first sees it, dated at premium_until, when the downgrade took effect', async () => {
      const until = new Date(NOW.getTime() + DAY_MS);
      const userId = await createUser(t.dataSource, { tier: 'pro', until, txRef: newToken() });
      const codes = await addEntries(userId, 4);

      t.clock.set(new Date(until.getTime() + 2 * DAY_MS));
      expect((await readWatchlist(userId)).body).toHaveLength(4);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', downgraded_at: until });

      t.clock.set(new Date(until.getTime() + 7 * DAY_MS - 1));
      await cleanup().runAll();
      expect(await entryCodes(userId)).toEqual(codes);

      t.clock.set(new Date(until.getTime() + 7 * DAY_MS));
      await cleanup().runAll();
      expect(await entryCodes(userId)).toEqual(codes.slice(1));
    });

    it('records an expiry nobody reported when the sweep first sees it, even if no one ever reads the watchlist', async () => {
      const until = new Date(NOW.getTime() + DAY_MS);
      const userId = await createUser(t.dataSource, { tier: 'max', until, txRef: newToken() });
      const codes = await addEntries(userId, 5);

      t.clock.set(new Date(until.getTime() + 45_000));
      await cleanup().runAll();
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', downgraded_at: until, downgraded_from: 'max' });

      t.clock.set(new Date(until.getTime() + 7 * DAY_MS));
      await cleanup().runAll();
      expect(await entryCodes(userId)).toEqual(codes.slice(2));
      expect(await userRow(userId)).toMatchObject({ downgraded_at: null, downgraded_from: null });
    });

    it('keeps the cleanup above the new tier when the tier rises again to a lower one within the 7 days (max → none → pro)', async () => {
      const until = new Date(NOW.getTime() + DAY_MS);
      const userId = await createUser(t.dataSource, { tier: 'max', until, txRef: newToken() });
      const codes = await addEntries(userId, 32);
      t.clock.set(new Date(until.getTime() + 60_000));
      await cleanup().runAll();

      t.clock.set(new Date(until.getTime() + 2 * DAY_MS));
      const token = newToken();
      answers.set(token, {
        state: 'SUBSCRIPTION_STATE_ACTIVE',
        productId: 'service.pro.monthly',
        expiry: new Date(until.getTime() + 40 * DAY_MS),
      });
      await verify(userId, android(token)).expect(200);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', downgraded_at: until, downgraded_from: 'max' });

      t.clock.set(new Date(until.getTime() + 7 * DAY_MS));
      await cleanup().runAll();
      expect(await entryCodes(userId)).toEqual(codes.slice(2));
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', downgraded_at: null, downgraded_from: null });
    });

    it('records the downgrade when the store reports an expiry after premium_until has passed', async () => {
      const token = newToken();
      const until = new Date(NOW.getTime() + DAY_MS);
      const userId = await createUser(t.dataSource, { tier: 'max', until, txRef: token });
      const codes = await addEntries(userId, 5);
      answers.set(token, { state: 'SUBSCRIPTION_STATE_EXPIRED', productId: 'service.max.monthly', expiry: until });

      const verifiedAt = new Date(until.getTime() + 3 * DAY_MS);
      t.clock.set(verifiedAt);
      await verify(userId, android(token, 'service.max.monthly')).expect(200, { active: false, tier: 'none' });
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', premium_until: null, downgraded_at: until });

      t.clock.set(new Date(until.getTime() + 7 * DAY_MS));
      expect((await readWatchlist(userId)).body).toHaveLength(3);
      expect(await entryCodes(userId)).toEqual(codes.slice(2));
    });

    it('treats max to pro as a downgrade and trims to the pro capacity of 30 (a Play plan change replaces the max purchase)', async () => {
      const oldToken = newToken();
      const userId = await createUser(t.dataSource, { tier: 'max', until: new Date(NOW.getTime() + 5 * DAY_MS), txRef: oldToken });
      const codes = await addEntries(userId, 32);
      const token = newToken();
      answers.set(token, {
        state: 'SUBSCRIPTION_STATE_ACTIVE',
        productId: 'service.pro.monthly',
        expiry: new Date(NOW.getTime() + 60 * DAY_MS),
        linkedPurchaseToken: oldToken,
      });

      await verify(userId, android(token)).expect(200);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', downgraded_at: NOW });

      t.clock.set(new Date(NOW.getTime() + 7 * DAY_MS));
      await cleanup().runAll();
      expect(await entryCodes(userId)).toEqual(codes.slice(2));
    });

    it('leaves users without a due cleanup alone', async () => {
      const userId = await createUser(t.dataSource, { tier: 'pro', until: new Date(NOW.getTime() + 30 * DAY_MS) });
      const codes = await addEntries(userId, 5);
      t.clock.set(new Date(NOW.getTime() + 20 * DAY_MS));
      await cleanup().runAll();
      await readWatchlist(userId);
      expect(await entryCodes(userId)).toEqual(codes);
    });
  });
});
