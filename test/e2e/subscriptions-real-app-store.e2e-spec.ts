import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { AppleSigningChain } from '../support/apple-store-doubles';
import { bearerFor, createUser } from '../support/fixtures';
import { type HttpDouble, sendJson, startHttpDouble } from '../support/http-double';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/**
 * The App Store paths against Apple-signed payloads of one real sandbox subscription
 * (test/fixtures/real-stores/SOURCES.md), verified with Apple Root CA - G3 by a
 * deployment configured for production. Apple signed them in October 2025: the service's
 * clock moves to their time, the payloads never change.
 */
const REAL = path.join(__dirname, '../fixtures/real-stores/apple');
const jws = (name: string) => readFileSync(path.join(REAL, `${name}.jws`), 'utf8').trim();
const BUNDLE = 'com.loki-project.loki-messenger';
const APP_APPLE_ID = '1470168868';
const ORIGINAL_ID = '2000001024993299';
const STATUS_PATH = '/inApps/v1/subscriptions/';
// In their group pro_sub is the higher level (Apple calls the change to it an upgrade).
const PRODUCTS = 'com.getsession.org.pro_sub=max,com.getsession.org.pro_sub_3_months=pro';

const MONTHLY_OF_OCT_2 = jws('L01685_signedTransactionInfo_Auto-Renewable_Subscription');
const EXPIRED_OF_OCT_2 = jws('L01930_signedPayload_EXPIRED_VOLUNTARY');
const RESUBSCRIBE_OF_OCT_6 = jws('L02095_signedPayload_SUBSCRIBED_RESUBSCRIBE');
const UPGRADE_OF_OCT_6 = jws('L02101_signedPayload_DID_CHANGE_RENEWAL_PREF_UPGRADE');
const THREE_MONTHS_OF_OCT_6 = jws('L02174_signedTransactionInfo_Auto-Renewable_Subscription');
const RESUBSCRIBE_OF_OCT_16 = jws('L03113_signedPayload_SUBSCRIBED_RESUBSCRIBE');
const REFUND_OF_OCT_13_PERIOD = jws('L03125_signedPayload_REFUND');
const THREE_MONTHS_OF_OCT_16 = jws('L03172_signedTransactionInfo_Auto-Renewable_Subscription');
const RENEWAL_OF_OCT_16 = jws('L03171_signedRenewalInfo_com.getsession.org.pro_sub_3_months');
const decoded = (signed: string) => JSON.parse(Buffer.from(signed.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;

/** What the App Store Server API double answers for the subscription. */
type StatusAnswer = { status: number; transaction: string; renewal?: string } | { httpStatus: number };

function appleEnv(apiUrl: string, rootPath: string, extra: Record<string, string> = {}): Record<string, string> {
  const apiKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    APPLE_BUNDLE_ID: BUNDLE,
    APPLE_APP_APPLE_ID: APP_APPLE_ID,
    APPLE_ENVIRONMENT: 'Production',
    APPLE_ISSUER_ID: '57246542-96fe-1a63-e053-0824d011072a',
    APPLE_KEY_ID: 'TESTKEY123',
    APPLE_PRIVATE_KEY: apiKey,
    APPLE_ROOT_CERTIFICATES: rootPath,
    APPLE_ONLINE_CHECKS: 'false',
    APPLE_API_BASE_URL: apiUrl,
    SUBSCRIPTION_PRODUCTS: PRODUCTS,
    ...extra,
  };
}

describe('App Store with real Apple-signed sandbox payloads, in a production deployment', () => {
  let t: TestApp;
  let api: HttpDouble;
  let answer: StatusAnswer = { httpStatus: 404 };

  beforeAll(async () => {
    api = await startHttpDouble((req: IncomingMessage, res: ServerResponse) => {
      const id = decodeURIComponent((req.url ?? '').slice(STATUS_PATH.length).split('?')[0]);
      if (id !== ORIGINAL_ID || 'httpStatus' in answer) {
        return sendJson(res, 'httpStatus' in answer ? answer.httpStatus : 404, {
          errorCode: 4040010,
          errorMessage: 'Transaction id not found.',
        });
      }
      sendJson(res, 200, {
        environment: 'Sandbox',
        bundleId: BUNDLE,
        appAppleId: Number(APP_APPLE_ID),
        data: [
          {
            subscriptionGroupIdentifier: '21000000',
            lastTransactions: [
              {
                status: answer.status,
                originalTransactionId: ORIGINAL_ID,
                signedTransactionInfo: answer.transaction,
                signedRenewalInfo: answer.renewal,
              },
            ],
          },
        ],
      });
    });
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS, env: appleEnv(api.url, path.join(REAL, 'AppleRootCA-G3.cer')) });
  });

  afterAll(async () => {
    await t?.close();
    await api?.close();
  });

  beforeEach(async () => {
    answer = { httpStatus: 404 };
    // One real subscription: each test starts without its purchase and notifications.
    await t.dataSource.query("DELETE FROM store_purchases WHERE platform = 'ios'");
    await t.dataSource.query("DELETE FROM store_notifications WHERE platform = 'ios'");
  });

  const notify = (signedPayload: string) => request(t.http).post('/internal/store-a-notifications').send({ signedPayload });
  const verify = (userId: number, token: string) =>
    request(t.http)
      .post('/api/v1/subscription/verify')
      .set('Authorization', bearerFor(t, userId))
      .send({ platform: 'ios', token, product_id: 'com.getsession.org.pro_sub_3_months' });
  const userRow = async (userId: number) =>
    (
      await t.dataSource.query<{ premium_tier: string; premium_until: Date | null; downgraded_at: Date | null }[]>(
        'SELECT premium_tier, premium_until, downgraded_at FROM users WHERE id = $1',
        [userId],
      )
    )[0];
  const purchase = async () =>
    (
      await t.dataSource.query<{ environment: string; transaction_id: string; store_signed_at: Date; entitled_until: Date | null }[]>(
        "SELECT environment, transaction_id, store_signed_at, entitled_until FROM store_purchases WHERE platform = 'ios' AND store_ref = $1",
        [ORIGINAL_ID],
      )
    )[0];

  /** A user who verified the subscription at `at`, Apple's status API answering `status` with `transaction`. */
  async function subscriberAt(at: string, transaction: string, renewal?: string): Promise<number> {
    t.clock.set(new Date(at));
    answer = { status: 1, transaction, renewal };
    const userId = await createUser(t.dataSource);
    await verify(userId, transaction).expect(200);
    return userId;
  }

  it('accepts a sandbox notification in production mode and records the purchase as sandbox', async () => {
    t.clock.set(new Date('2025-10-06T05:16:30Z'));

    await notify(RESUBSCRIBE_OF_OCT_6).expect(200, { status: 'applied' });

    expect(await purchase()).toEqual({
      environment: 'sandbox',
      transaction_id: '2000001027701898',
      store_signed_at: new Date(decoded(RESUBSCRIBE_OF_OCT_6).signedDate as number),
      entitled_until: new Date('2025-10-06T05:25:18Z'),
    });
  });

  it('accepts a sandbox transaction at verify in production mode and grants its tier', async () => {
    const userId = await subscriberAt('2025-10-06T05:17:00Z', THREE_MONTHS_OF_OCT_6);
    expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_until: new Date('2025-10-06T05:25:18Z') });
  });

  it('leaves the tier when the EXPIRED of Oct 2 is delivered after the RESUBSCRIBE of Oct 6 (Apple does not keep order)', async () => {
    const userId = await subscriberAt('2025-10-06T05:17:00Z', THREE_MONTHS_OF_OCT_6);
    await notify(RESUBSCRIBE_OF_OCT_6).expect(200, { status: 'applied' });
    const calls = api.requests.length;

    await notify(EXPIRED_OF_OCT_2).expect(200, { status: 'stale' });

    expect(await userRow(userId)).toMatchObject({
      premium_tier: 'pro',
      premium_until: new Date('2025-10-06T05:25:18Z'),
      downgraded_at: null,
    });
    // Older than the stored state: nothing to confirm with Apple.
    expect(api.requests.length).toBe(calls);
    expect(await purchase()).toMatchObject({ transaction_id: '2000001027701898' });
  });

  it('ends with the newest state whichever of two parallel deliveries the database takes first', async () => {
    for (let round = 0; round < 4; round++) {
      await t.dataSource.query("DELETE FROM store_notifications WHERE platform = 'ios'");
      await t.dataSource.query("DELETE FROM store_purchases WHERE platform = 'ios'");
      // Verified on Oct 2: the stored state is older than both notifications.
      const userId = await subscriberAt('2025-10-02T07:07:00Z', MONTHLY_OF_OCT_2);
      t.clock.set(new Date('2025-10-06T05:17:00Z'));
      // Apple does not know it: each notification is the only word on it, and the order decides.
      answer = { httpStatus: 404 };

      const outcomes = await Promise.all([notify(EXPIRED_OF_OCT_2), notify(RESUBSCRIBE_OF_OCT_6)]);

      expect(outcomes.map((res) => res.status)).toEqual([200, 200]);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro', premium_until: new Date('2025-10-06T05:25:18Z') });
    }
  });

  it('applies the UPGRADE that follows the RESUBSCRIBE: a plan change in the group keeps the purchase and the user', async () => {
    const userId = await subscriberAt('2025-10-06T05:17:00Z', THREE_MONTHS_OF_OCT_6);
    await notify(RESUBSCRIBE_OF_OCT_6).expect(200, { status: 'applied' });

    await notify(UPGRADE_OF_OCT_6).expect(200, { status: 'applied' });

    expect(await userRow(userId)).toMatchObject({ premium_tier: 'max', premium_until: new Date('2025-10-06T05:19:30Z') });
  });

  it('keeps the three-month period in force when the REFUND of an earlier period arrives (Apple confirms it still serves)', async () => {
    const userId = await subscriberAt('2025-10-16T05:22:30Z', THREE_MONTHS_OF_OCT_16, RENEWAL_OF_OCT_16);
    await notify(RESUBSCRIBE_OF_OCT_16).expect(200, { status: 'applied' });

    await notify(REFUND_OF_OCT_13_PERIOD).expect(200, { status: 'applied' });

    expect(await userRow(userId)).toMatchObject({
      premium_tier: 'pro',
      premium_until: new Date('2025-10-16T05:25:14Z'),
      downgraded_at: null,
    });
    expect(await purchase()).toMatchObject({ transaction_id: '2000001035288486', entitled_until: new Date('2025-10-16T05:25:14Z') });
  });

  it('withdraws at the revocation when Apple confirms the refunded transaction is the one in force', async () => {
    const userId = await subscriberAt('2025-10-16T05:22:30Z', THREE_MONTHS_OF_OCT_16, RENEWAL_OF_OCT_16);
    const refunded = (decoded(REFUND_OF_OCT_13_PERIOD).data as { signedTransactionInfo: string }).signedTransactionInfo;
    answer = { status: 5, transaction: refunded };

    await notify(REFUND_OF_OCT_13_PERIOD).expect(200, { status: 'applied' });

    expect(await userRow(userId)).toMatchObject({ premium_tier: 'none', downgraded_at: new Date('2025-10-16T05:19:59Z') });
  });

  it('answers 503 and applies nothing while Apple cannot confirm a withdrawal; the retry applies it', async () => {
    const userId = await subscriberAt('2025-10-16T05:22:30Z', THREE_MONTHS_OF_OCT_16, RENEWAL_OF_OCT_16);
    answer = { httpStatus: 500 };

    const res = await notify(REFUND_OF_OCT_13_PERIOD).expect(503);

    expect(res.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await userRow(userId)).toMatchObject({ premium_tier: 'pro' });
    answer = { status: 1, transaction: THREE_MONTHS_OF_OCT_16, renewal: RENEWAL_OF_OCT_16 };
    await notify(REFUND_OF_OCT_13_PERIOD).expect(200, { status: 'applied' });
  });

  describe('SANDBOX_PURCHASES=refuse', () => {
    let strict: TestApp;
    beforeAll(async () => {
      strict = await startTestApp({
        database: t.database,
        rateLimits: RELAXED_RATE_LIMITS,
        env: appleEnv(api.url, path.join(REAL, 'AppleRootCA-G3.cer'), { SANDBOX_PURCHASES: 'refuse' }),
      });
    });
    afterAll(() => strict?.close());

    it('answers 402 to a sandbox transaction at verify and grants nothing from a sandbox notification', async () => {
      strict.clock.set(new Date('2025-10-06T05:17:00Z'));
      answer = { status: 1, transaction: THREE_MONTHS_OF_OCT_6 };
      const userId = await createUser(strict.dataSource);

      const res = await request(strict.http)
        .post('/api/v1/subscription/verify')
        .set('Authorization', bearerFor(strict, userId))
        .send({ platform: 'ios', token: THREE_MONTHS_OF_OCT_6, product_id: 'com.getsession.org.pro_sub_3_months' })
        .expect(402);

      expect(res.body).toMatchObject({ code: 'SUBSCRIPTION_INVALID', message: 'Sandbox purchases do not grant a tier on this deployment' });
      await request(strict.http).post('/internal/store-a-notifications').send({ signedPayload: RESUBSCRIBE_OF_OCT_6 }).expect(200);
      expect(await userRow(userId)).toMatchObject({ premium_tier: 'none' });
    });
  });
});

describe('App Store certificate revocation checks that cannot be made', () => {
  let t: TestApp;
  let ocsp: HttpDouble;
  let api: HttpDouble;
  let dir: string;
  let chain: AppleSigningChain;

  beforeAll(async () => {
    // Apple's OCSP responder failing: the chain names this responder, which answers 500.
    ocsp = await startHttpDouble((_req, res) => sendJson(res, 500, {}));
    api = await startHttpDouble((_req, res) => sendJson(res, 500, {}));
    chain = new AppleSigningChain({ ocspUrl: `${ocsp.url}/ocsp` });
    dir = mkdtempSync(path.join(tmpdir(), 'apple-roots-'));
    const rootPath = path.join(dir, 'root.cer');
    writeFileSync(rootPath, chain.root.der);
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS, env: appleEnv(api.url, rootPath, { APPLE_ONLINE_CHECKS: 'true' }) });
  });
  afterAll(async () => {
    await t?.close();
    await ocsp?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 (Apple unavailable), not 401 or 402, on a notification and on verify', async () => {
    const now = Date.now();
    const transaction = await chain.sign({
      transactionId: '1',
      originalTransactionId: '1',
      bundleId: BUNDLE,
      productId: 'com.getsession.org.pro_sub',
      purchaseDate: now,
      expiresDate: now + 60_000,
      type: 'Auto-Renewable Subscription',
      signedDate: now,
      environment: 'Production',
    });
    const notification = await chain.sign({
      notificationType: 'DID_RENEW',
      notificationUUID: 'b1c5c5d4-8c4c-4a59-9a6f-3d0b8f9e2c11',
      signedDate: now,
      data: { appAppleId: Number(APP_APPLE_ID), bundleId: BUNDLE, environment: 'Production', signedTransactionInfo: transaction },
    });

    const notified = await request(t.http).post('/internal/store-a-notifications').send({ signedPayload: notification }).expect(503);
    expect(notified.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(ocsp.requests.length).toBeGreaterThan(0);

    const userId = await createUser(t.dataSource);
    const verified = await request(t.http)
      .post('/api/v1/subscription/verify')
      .set('Authorization', bearerFor(t, userId))
      .send({ platform: 'ios', token: transaction, product_id: 'com.getsession.org.pro_sub' })
      .expect(503);
    expect(verified.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
