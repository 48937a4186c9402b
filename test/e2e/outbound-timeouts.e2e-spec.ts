import { generateKeyPairSync, sign } from 'node:crypto';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import { AdVerifierKeys } from '../../src/ads/ad-verifier-keys';
import { AppCheckVerifier } from '../../src/attestation/app-check-verifier';
import { BoundedServiceAccountCredential } from '../../src/attestation/firebase-app';
import { FirebaseAppCheckVerifier } from '../../src/attestation/firebase-app-check.verifier';
import { SystemClock } from '../../src/common/clock';
import { loadConfig } from '../../src/app-config';
import { FirebasePushSender } from '../../src/push/firebase-push-sender';
import { newFilingMessage } from '../../src/push/new-filing-message';
import { FakeClock } from '../support/fake-clock';
import { bearerFor, createUser } from '../support/fixtures';
import { appCheckToken, firebaseServiceAccountJson } from '../support/firebase-doubles';
import { redirectTlsTo, type SilentServer, startSilentServer } from '../support/silent-server';
import { startTestApp } from '../support/test-app';

/** The timeout each client gets here, shortened from its default of several seconds. */
const TIMEOUT_MS = 1000;
/** Generous on purpose: the calls end at about TIMEOUT_MS (the token request at three times that); this says they end. */
const BOUND_MS = 10_000;

class QuickAdVerifierKeys extends AdVerifierKeys {
  protected override readonly fetchTimeoutMs = TIMEOUT_MS;
}

class QuickAppCheckVerifier extends FirebaseAppCheckVerifier {
  protected override readonly timeoutMs = TIMEOUT_MS;
}

class QuickPushSender extends FirebasePushSender {
  protected override readonly sendTimeoutMs = TIMEOUT_MS;
}

/** What `work` resolved to, and how long it took. */
async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

describe('outbound calls to a server that accepts the connection and never answers', () => {
  let silent: SilentServer;
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    silent = await startSilentServer();
    redirectTlsTo(silent.port);
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });

  afterAll(async () => {
    // Closed before the TLS redirect is undone: whatever still waits on it fails at once, and nothing
    // reconnects to the real hosts.
    await silent?.close();
    jest.restoreAllMocks();
  });

  it('the ad network verifier keys: the reward callback answers 503 AD_VERIFIER_KEYS_UNAVAILABLE', async () => {
    const env = { ADMOB_VERIFIER_KEYS_URL: `${silent.url}/admob/reward/verifier-keys.json` };
    const clock = new FakeClock();
    const keys = new QuickAdVerifierKeys(loadConfig(env), clock);
    const t = await startTestApp({ env, clock, overrides: [{ provide: AdVerifierKeys, useValue: keys }] });
    try {
      const signed = `ad_network=5450213213286189855&ad_unit=5224354917&reward_amount=1&reward_item=Reveal&timestamp=${clock.nowMs()}&transaction_id=outbound-timeout&user_id=1`;
      const signature = sign('sha256', Buffer.from(signed), generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey).toString(
        'base64url',
      );
      const accepted = silent.accepted();

      const { value: res, ms } = await timed(request(t.http).get(`/api/v1/adnet/ssv?${signed}&signature=${signature}&key_id=3335741209`));

      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'AD_VERIFIER_KEYS_UNAVAILABLE' });
      expect(ms).toBeLessThan(BOUND_MS);
      expect(silent.accepted()).toBe(accepted + 1);
    } finally {
      await t.close();
    }
  });

  it('Firebase App Check, the key fetch: the guarded route answers 403 ATTESTATION_FAILED, as for any failed verification', async () => {
    const verifier = new QuickAppCheckVerifier(
      loadConfig({ FIREBASE_SERVICE_ACCOUNT: firebaseServiceAccountJson(), DEVICE_ATTESTATION: 'enforce' }),
    );
    const t = await startTestApp({
      env: { DEVICE_ATTESTATION: 'enforce' },
      overrides: [{ provide: AppCheckVerifier, useValue: verifier }],
    });
    try {
      const userId = await createUser(t.dataSource);
      const accepted = silent.accepted();

      const { value: res, ms } = await timed(
        request(t.http)
          .post('/api/v1/ai/analyze/20261120000123/reveal')
          .set('Authorization', bearerFor(t, userId))
          .set('X-Firebase-AppCheck', appCheckToken()),
      );

      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'ATTESTATION_FAILED' });
      expect(ms).toBeLessThan(BOUND_MS);
      // It was the key fetch that hung, and the operators are told.
      expect(silent.accepted()).toBe(accepted + 1);
      expect(warn).toHaveBeenCalledWith(
        { err: expect.objectContaining({ name: 'FirebaseTimeoutError', message: 'App Check verification did not finish within 1000 ms' }) },
        'App Check verification failed',
      );
    } finally {
      await t.close();
    }
  });

  describe('Firebase Cloud Messaging, sendEach', () => {
    let sender: QuickPushSender;
    let accessToken: jest.SpyInstance;
    const messages = [1, 2, 3].map((i) =>
      newFilingMessage(`token-${i}`, {
        rceptNo: '20261120000123',
        corpCode: '00126380',
        corpName: '삼성전자',
        reportName: '분기보고서',
        oneLiner: null,
      }),
    );
    const transient = { ok: false, failure: 'transient', error: expect.any(String) };

    beforeEach(async () => {
      accessToken = jest.spyOn(BoundedServiceAccountCredential.prototype, 'getAccessToken');
      sender = new QuickPushSender(firebaseServiceAccountJson(), new SystemClock());
      await sender.onModuleInit();
    });

    afterEach(async () => {
      await sender.onApplicationShutdown();
      accessToken.mockRestore();
    });

    it('the access-token request: every message ends transient (retried later), and the request itself gives up', async () => {
      const accepted = silent.accepted();

      const { value: results, ms } = await timed(sender.send(messages));

      expect(results).toEqual(messages.map(() => transient));
      expect(ms).toBeLessThan(BOUND_MS);
      expect(silent.accepted()).toBeGreaterThan(accepted);
      // firebase-admin has every later call wait for the refresh in flight: a hung one would stop all pushes.
      const started = performance.now();
      await expect(accessToken.mock.results[0].value).rejects.toMatchObject({ code: 'TimeoutError' });
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
    });

    it('FCM itself (HTTP/2, with a token at hand): every message ends transient (retried later)', async () => {
      accessToken.mockResolvedValue({ access_token: 'test-access-token', expires_in: 3600 });
      const accepted = silent.accepted();

      const { value: results, ms } = await timed(sender.send(messages));

      expect(results).toEqual(
        messages.map(() => ({ ...transient, error: 'ETIMEDOUT: sendEach of 3 messages did not finish within 1000 ms' })),
      );
      expect(ms).toBeLessThan(BOUND_MS);
      expect(silent.accepted()).toBe(accepted + 1);
    });
  });
});
