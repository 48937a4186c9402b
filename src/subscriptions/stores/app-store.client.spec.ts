import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { JWSRenewalInfoDecodedPayload, JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import { AppleSigningChain } from '../../../test/support/apple-store-doubles';
import { type HttpDouble, sendJson, startHttpDouble } from '../../../test/support/http-double';
import { appleState, AppStoreClient, AppStoreInvalidError, AppStoreUnavailableError } from './app-store.client';

const NOW = new Date('2026-11-18T03:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;
const tx = (fields: Partial<JWSTransactionDecodedPayload>): JWSTransactionDecodedPayload => ({
  productId: 'service.pro.monthly',
  expiresDate: NOW.getTime() + DAY_MS,
  ...fields,
});

describe('appleState', () => {
  it('serves until expiresDate, not at it', () => {
    expect(appleState('STATUS_1', tx({}), undefined, false, NOW)).toEqual({
      state: 'STATUS_1',
      productId: 'service.pro.monthly',
      expiryTime: new Date(NOW.getTime() + DAY_MS),
      serving: true,
    });
    expect(appleState('STATUS_1', tx({ expiresDate: NOW.getTime() }), undefined, false, NOW).serving).toBe(false);
  });

  it('serves until gracePeriodExpiresDate in the grace period, and ignores it otherwise', () => {
    const lapsed = tx({ expiresDate: NOW.getTime() - DAY_MS });
    const renewal: JWSRenewalInfoDecodedPayload = { gracePeriodExpiresDate: NOW.getTime() + 3 * DAY_MS };
    expect(appleState('STATUS_4', lapsed, renewal, true, NOW)).toMatchObject({
      expiryTime: new Date(NOW.getTime() + 3 * DAY_MS),
      serving: true,
    });
    expect(appleState('STATUS_3', lapsed, renewal, false, NOW).serving).toBe(false);
  });

  it('never serves a revoked transaction', () => {
    expect(appleState('STATUS_5', tx({ revocationDate: NOW.getTime() - 1 }), undefined, false, NOW).serving).toBe(false);
  });

  it('never serves without an expiry', () => {
    expect(appleState('STATUS_1', tx({ expiresDate: undefined }), undefined, false, NOW)).toMatchObject({ expiryTime: null, serving: false });
  });
});

describe('AppStoreClient calls', () => {
  let api: HttpDouble;
  let dir: string;
  let client: AppStoreClient;
  const calls: string[] = [];
  let answer: { status: number; body: unknown };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'apple-roots-'));
    const rootPath = path.join(dir, 'root.cer');
    writeFileSync(rootPath, new AppleSigningChain().root.der);
    api = await startHttpDouble((_req, res) => sendJson(res, answer.status, answer.body));
    const privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    client = new AppStoreClient(
      {
        bundleId: 'com.example.briefing',
        environment: 'Sandbox',
        issuerId: '57246542-96fe-1a63-e053-0824d011072a',
        keyId: 'TESTKEY123',
        privateKey,
        rootCertificatePaths: [rootPath],
        onlineChecks: false,
        apiBaseUrl: api.url,
      },
      (endpoint, result) => calls.push(`${endpoint} ${result}`),
    );
  });
  afterAll(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells its listener how each App Store Server API call went: answered, unknown purchase, or failed', async () => {
    // Answered: the call went well, whatever the verification of its contents says next.
    answer = { status: 200, body: { data: [{ lastTransactions: [{ status: 1, originalTransactionId: '1', signedTransactionInfo: 'not-signed' }] }] } };
    await expect(client.currentState('1', new Date())).rejects.toBeInstanceOf(AppStoreInvalidError);
    answer = { status: 404, body: { errorCode: 4040010, errorMessage: 'Transaction id not found.' } };
    await expect(client.currentState('2', new Date())).rejects.toBeInstanceOf(AppStoreInvalidError);
    answer = { status: 500, body: { errorCode: 5000000, errorMessage: 'error' } };
    await expect(client.currentState('3', new Date())).rejects.toBeInstanceOf(AppStoreUnavailableError);
    expect(calls).toEqual(['getAllSubscriptionStatuses ok', 'getAllSubscriptionStatuses invalid', 'getAllSubscriptionStatuses unavailable']);
  });
});
