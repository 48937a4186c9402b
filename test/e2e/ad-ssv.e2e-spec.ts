import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import request from 'supertest';
import { bearerFor, createUser } from '../support/fixtures';
import { type HttpDouble, sendJson, startHttpDouble } from '../support/http-double';
import { startTestApp, type TestApp } from '../support/test-app';

const DAY_MS = 24 * 60 * 60 * 1000;
const AD_UNIT = '5224354917';
const OTHER_ALLOWED_AD_UNIT = '1712485313';

interface SigningKey {
  keyId: number;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

function newSigningKey(keyId: number): SigningKey {
  return { keyId, ...generateKeyPairSync('ec', { namedCurve: 'prime256v1' }) };
}

/** The ad network's key server: publishes the public half of the keys it is given, in its JSON layout. */
interface KeyServer extends HttpDouble {
  keysUrl: string;
  /** The keys published from now on. */
  publish(...keys: SigningKey[]): void;
  /** While true the key server answers 500. */
  setFailing(failing: boolean): void;
}

/** The ad network's key server: publishes the public half of the keys it is given, in its JSON layout. */
async function startKeyServer(): Promise<KeyServer> {
  let published: SigningKey[] = [];
  let failing = false;
  const double = await startHttpDouble((req, res) => {
    if (req.url !== '/admob/reward/verifier-keys.json') return sendJson(res, 404, {});
    if (failing) return sendJson(res, 500, { error: 'unavailable' });
    sendJson(res, 200, {
      keys: published.map(({ keyId, publicKey }) => ({
        keyId,
        pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        base64: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      })),
    });
  });
  return {
    ...double,
    keysUrl: `${double.url}/admob/reward/verifier-keys.json`,
    publish: (...keys) => {
      published = keys;
    },
    setFailing: (value) => {
      failing = value;
    },
  };
}

describe('rewarded ads: GET /api/v1/adnet/ssv (server-side verification callback)', () => {
  let keyServer: KeyServer;
  let t: TestApp;
  const keyA = newSigningKey(3335741209);
  const keyB = newSigningKey(4412000001);
  const foreignKey = newSigningKey(3335741209);
  let transactionSeq = 0;

  beforeAll(async () => {
    keyServer = await startKeyServer();
    keyServer.publish(keyA);
    // The specification's rate limits: the callback is a GET and must never meet them.
    t = await startTestApp({
      env: {
        ADMOB_VERIFIER_KEYS_URL: keyServer.keysUrl,
        ADMOB_AD_UNIT_IDS: `ca-app-pub-3940256099942544/${AD_UNIT},${OTHER_ALLOWED_AD_UNIT}`,
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await keyServer?.close();
  });

  async function weeklyUsed(userId: number): Promise<number> {
    const res = await request(t.http).get('/api/v1/quota').set('Authorization', bearerFor(t, userId)).expect(200);
    return res.body.weekly_used as number;
  }

  async function recorded(transactionId: string): Promise<number> {
    const rows = await t.dataSource.query<unknown[]>('SELECT 1 FROM ad_reward_transactions WHERE transaction_id = $1', [transactionId]);
    return rows.length;
  }

  const newTransactionId = () => `${Date.now().toString(16)}${(++transactionSeq).toString(16).padStart(8, '0')}`;

  interface CallbackFields {
    userId: number | string;
    transactionId?: string;
    adUnit?: string;
    timestamp?: number;
  }

  /**
   * The signed part of a callback as the ad network writes it: alphabetical
   * parameters, percent-encoded (custom_data holds `%20`, which a re-serialising
   * server would turn into `+` and so break the signature).
   */
  function signedPart(fields: CallbackFields): string {
    return [
      'ad_network=5450213213286189855',
      `ad_unit=${fields.adUnit ?? AD_UNIT}`,
      'custom_data=reveal%20screen',
      'reward_amount=1',
      'reward_item=Reveal',
      `timestamp=${fields.timestamp ?? t.clock.nowMs()}`,
      `transaction_id=${fields.transactionId ?? newTransactionId()}`,
      `user_id=${fields.userId}`,
    ].join('&');
  }

  function signature(message: string, key: SigningKey): string {
    return sign('sha256', Buffer.from(message, 'utf8'), key.privateKey).toString('base64url');
  }

  /** A complete callback query, signed by `key` and naming `keyId` (by default the key's own). */
  function callbackQuery(fields: CallbackFields, key: SigningKey = keyA, keyId: number = key.keyId): string {
    const message = signedPart(fields);
    return `${message}&signature=${signature(message, key)}&key_id=${keyId}`;
  }

  const callback = (query: string) => request(t.http).get(`/api/v1/adnet/ssv?${query}`);

  describe('the verifier keys', () => {
    // First in the file: nothing has fetched the keys yet.
    it('are fetched once for many callbacks, also concurrent ones', async () => {
      expect(keyServer.requests).toHaveLength(0);
      const userId = await createUser(t.dataSource);
      const before = await weeklyUsed(userId);

      const concurrent = await Promise.all(Array.from({ length: 4 }, () => callback(callbackQuery({ userId }))));
      expect(concurrent.map((res) => res.status)).toEqual([200, 200, 200, 200]);
      for (let i = 0; i < 3; i++) await callback(callbackQuery({ userId })).expect(200);

      expect(await weeklyUsed(userId)).toBe(before - 7);
      expect(keyServer.requests).toHaveLength(1);
    });

    it('are fetched again for a key_id the cache does not know (key rotation)', async () => {
      keyServer.publish(keyA, keyB);
      t.clock.advance(61_000);
      const fetches = keyServer.requests.length;
      const userId = await createUser(t.dataSource);
      const before = await weeklyUsed(userId);

      await callback(callbackQuery({ userId }, keyB)).expect(200, { granted: true });
      expect(keyServer.requests).toHaveLength(fetches + 1);
      // Both keys are cached now.
      await callback(callbackQuery({ userId }, keyA)).expect(200);
      await callback(callbackQuery({ userId }, keyB)).expect(200);
      expect(keyServer.requests).toHaveLength(fetches + 1);
      expect(await weeklyUsed(userId)).toBe(before - 3);
    });

    it('are not fetched more than once a minute however many unknown key_ids arrive', async () => {
      t.clock.advance(61_000);
      const fetches = keyServer.requests.length;
      const userId = await createUser(t.dataSource);
      const unknownKey = newSigningKey(999_000_001);

      const first = await callback(callbackQuery({ userId }, unknownKey)).expect(403);
      expect(first.body).toMatchObject({ statusCode: 403, error: 'Forbidden', code: 'AD_SIGNATURE_INVALID' });
      expect(keyServer.requests).toHaveLength(fetches + 1);

      for (let keyId = 999_000_002; keyId < 999_000_012; keyId++) {
        await callback(callbackQuery({ userId }, newSigningKey(keyId))).expect(403);
      }
      expect(keyServer.requests).toHaveLength(fetches + 1);

      t.clock.advance(60_000);
      await callback(callbackQuery({ userId }, unknownKey)).expect(403);
      expect(keyServer.requests).toHaveLength(fetches + 2);
    });

    it('are cached for at most 24 hours', async () => {
      const userId = await createUser(t.dataSource);
      // Whatever the cache holds has expired a day later: this callback fetches.
      t.clock.advance(DAY_MS);
      const before = keyServer.requests.length;
      await callback(callbackQuery({ userId })).expect(200);
      const fetches = keyServer.requests.length;
      expect(fetches).toBe(before + 1);

      t.clock.advance(DAY_MS - 1000);
      await callback(callbackQuery({ userId })).expect(200);
      expect(keyServer.requests).toHaveLength(fetches);

      t.clock.advance(1000);
      await callback(callbackQuery({ userId })).expect(200);
      expect(keyServer.requests).toHaveLength(fetches + 1);
    });

    it('answer 503 and grant nothing while they cannot be fetched', async () => {
      const userId = await createUser(t.dataSource);
      keyServer.setFailing(true);
      t.clock.advance(DAY_MS);
      try {
        const before = await weeklyUsed(userId);
        const transactionId = newTransactionId();
        const res = await callback(callbackQuery({ userId, transactionId })).expect(503);
        expect(res.body).toMatchObject({ statusCode: 503, code: 'AD_VERIFIER_KEYS_UNAVAILABLE' });
        expect(await weeklyUsed(userId)).toBe(before);
        expect(await recorded(transactionId)).toBe(0);
      } finally {
        keyServer.setFailing(false);
      }
      // The ad network's retry after the outage is granted.
      t.clock.advance(61_000);
      await callback(callbackQuery({ userId })).expect(200, { granted: true });
    });
  });

  describe('a valid callback', () => {
    it('grants exactly one credit and records the transaction', async () => {
      const userId = await createUser(t.dataSource);
      const before = await weeklyUsed(userId);
      const transactionId = newTransactionId();

      const res = await callback(callbackQuery({ userId, transactionId })).expect(200);
      expect(res.body).toEqual({ granted: true });
      expect(await weeklyUsed(userId)).toBe(before - 1);
      const [row] = await t.dataSource.query<{ user_id: number; ad_unit: string; key_id: string }[]>(
        'SELECT user_id, ad_unit, key_id FROM ad_reward_transactions WHERE transaction_id = $1',
        [transactionId],
      );
      expect(row).toEqual({ user_id: userId, ad_unit: AD_UNIT, key_id: String(keyA.keyId) });
    });

    it('needs no JWT and ignores one that is sent', async () => {
      const userId = await createUser(t.dataSource);
      const before = await weeklyUsed(userId);
      await callback(callbackQuery({ userId })).set('Authorization', 'Bearer not-a-token').expect(200);
      expect(await weeklyUsed(userId)).toBe(before - 1);
    });

    it('answers 200 again for the same transaction_id and grants nothing', async () => {
      const userId = await createUser(t.dataSource);
      const query = callbackQuery({ userId });
      await callback(query).expect(200, { granted: true });
      const after = await weeklyUsed(userId);

      await callback(query).expect(200, { granted: false });
      await callback(query).expect(200, { granted: false });
      expect(await weeklyUsed(userId)).toBe(after);
    });

    it('grants once when identical callbacks arrive in parallel', async () => {
      const userId = await createUser(t.dataSource);
      const before = await weeklyUsed(userId);
      const query = callbackQuery({ userId });

      const results = await Promise.all(Array.from({ length: 8 }, () => callback(query)));
      expect(results.map((res) => res.status)).toEqual(Array(8).fill(200));
      expect(results.filter((res) => res.body.granted === true)).toHaveLength(1);
      expect(await weeklyUsed(userId)).toBe(before - 1);
    });

    it('is accepted with key_id inside the signed part', async () => {
      const userId = await createUser(t.dataSource);
      const before = await weeklyUsed(userId);
      const message = `${signedPart({ userId })}&key_id=${keyA.keyId}`;
      await callback(`${message}&signature=${signature(message, keyA)}`).expect(200, { granted: true });
      expect(await weeklyUsed(userId)).toBe(before - 1);
    });

    it('is accepted for every allowed ad unit, whether configured short or in full', async () => {
      const userId = await createUser(t.dataSource);
      await callback(callbackQuery({ userId, adUnit: OTHER_ALLOWED_AD_UNIT })).expect(200, { granted: true });
      await callback(callbackQuery({ userId, adUnit: AD_UNIT })).expect(200, { granted: true });
    });

    it('takes a timestamp up to an hour old and a little ahead of our clock', async () => {
      const userId = await createUser(t.dataSource);
      await callback(callbackQuery({ userId, timestamp: t.clock.nowMs() - 59 * 60_000 })).expect(200);
      await callback(callbackQuery({ userId, timestamp: t.clock.nowMs() + 60_000 })).expect(200);
    });

    it('can take the used count below 0', async () => {
      const userId = await createUser(t.dataSource);
      expect(await weeklyUsed(userId)).toBe(0);
      await callback(callbackQuery({ userId })).expect(200);
      await callback(callbackQuery({ userId })).expect(200);
      expect(await weeklyUsed(userId)).toBe(-2);
    });

    it('is never rate limited (it is a GET)', async () => {
      const userId = await createUser(t.dataSource);
      const results = [];
      for (let i = 0; i < 25; i++) results.push((await callback(callbackQuery({ userId }))).status);
      expect(results).toEqual(Array(25).fill(200));
    });
  });

  describe('a refused callback grants nothing', () => {
    let userId: number;

    beforeAll(async () => {
      userId = await createUser(t.dataSource);
    });

    /** Each case builds its query for a fresh transaction id and says what answer it expects. */
    const cases: [string, (transactionId: string) => string, number, string][] = [
      [
        'a signature by a key the ad network never published',
        (transactionId) => callbackQuery({ userId, transactionId }, foreignKey, keyA.keyId),
        403,
        'AD_SIGNATURE_INVALID',
      ],
      [
        'a query changed after signing (another user_id)',
        (transactionId) => callbackQuery({ userId: 1, transactionId }).replace('user_id=1&', `user_id=${userId}&`),
        403,
        'AD_SIGNATURE_INVALID',
      ],
      [
        'a query changed after signing (re-encoded custom_data)',
        (transactionId) => callbackQuery({ userId, transactionId }).replace('reveal%20screen', 'reveal+screen'),
        403,
        'AD_SIGNATURE_INVALID',
      ],
      [
        'a signature over another message',
        (transactionId) => {
          const message = signedPart({ userId, transactionId });
          return `${message}&signature=${signature(`${message}&x=1`, keyA)}&key_id=${keyA.keyId}`;
        },
        403,
        'AD_SIGNATURE_INVALID',
      ],
      [
        'a truncated signature',
        (transactionId) => callbackQuery({ userId, transactionId }).replace(/(&signature=[^&]{20})[^&]*/, '$1'),
        403,
        'AD_SIGNATURE_INVALID',
      ],
      ['no signature', (transactionId) => `${signedPart({ userId, transactionId })}&key_id=${keyA.keyId}`, 403, 'AD_SIGNATURE_INVALID'],
      ['no key_id', (transactionId) => callbackQuery({ userId, transactionId }).replace(/&key_id=\d+$/, ''), 403, 'AD_SIGNATURE_INVALID'],
      [
        'a key_id that is not published',
        (transactionId) => callbackQuery({ userId, transactionId }, keyA, 123456),
        403,
        'AD_SIGNATURE_INVALID',
      ],
      [
        'an unsigned user_id appended after the signature',
        (transactionId) => `${callbackQuery({ userId, transactionId })}&user_id=${userId}`,
        400,
        'AD_CALLBACK_INVALID',
      ],
      [
        'a timestamp older than an hour',
        (transactionId) => callbackQuery({ userId, transactionId, timestamp: t.clock.nowMs() - 61 * 60_000 }),
        400,
        'AD_CALLBACK_EXPIRED',
      ],
      [
        'a timestamp more than five minutes ahead',
        (transactionId) => callbackQuery({ userId, transactionId, timestamp: t.clock.nowMs() + 6 * 60_000 }),
        400,
        'AD_CALLBACK_EXPIRED',
      ],
      [
        'a timestamp in seconds rather than milliseconds',
        (transactionId) => callbackQuery({ userId, transactionId, timestamp: Math.floor(t.clock.nowMs() / 1000) }),
        400,
        'AD_CALLBACK_EXPIRED',
      ],
      [
        'an ad unit that is not ours',
        (transactionId) => callbackQuery({ userId, transactionId, adUnit: '9999999999' }),
        400,
        'AD_UNIT_NOT_ALLOWED',
      ],
      [
        'a user_id that is not a service user id',
        (transactionId) => callbackQuery({ userId: 'kakao-123', transactionId }),
        400,
        'AD_USER_UNKNOWN',
      ],
      ['a user_id beyond the id range', (transactionId) => callbackQuery({ userId: '2147483648', transactionId }), 400, 'AD_USER_UNKNOWN'],
      ['a user that does not exist', (transactionId) => callbackQuery({ userId: 2_000_000_000, transactionId }), 400, 'AD_USER_UNKNOWN'],
      ['no transaction_id', () => callbackQuery({ userId, transactionId: '' }), 400, 'AD_CALLBACK_INVALID'],
    ];

    it.each(cases)('%s', async (_case, build, status, code) => {
      const before = await weeklyUsed(userId);
      const transactionId = newTransactionId();
      const res = await callback(build(transactionId)).expect(status);
      expect(res.body).toEqual({ statusCode: status, error: expect.any(String), message: expect.any(String), code });
      expect(await weeklyUsed(userId)).toBe(before);
      expect(await recorded(transactionId)).toBe(0);
    });

    it('and a refused callback does not burn its transaction_id', async () => {
      const before = await weeklyUsed(userId);
      const transactionId = newTransactionId();
      await callback(callbackQuery({ userId, transactionId, adUnit: '9999999999' })).expect(400);
      await callback(callbackQuery({ userId, transactionId })).expect(200, { granted: true });
      expect(await weeklyUsed(userId)).toBe(before - 1);
    });

    it('answers a user deleted since the ad was watched with 400', async () => {
      const gone = await createUser(t.dataSource);
      await t.dataSource.query('DELETE FROM users WHERE id = $1', [gone]);
      const res = await callback(callbackQuery({ userId: gone })).expect(400);
      expect(res.body.code).toBe('AD_USER_UNKNOWN');
    });
  });
});
