import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { JWSRenewalInfoDecodedPayload, JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import { AppleSigningChain } from '../../../test/support/apple-store-doubles';
import { type HttpDouble, sendJson, startHttpDouble } from '../../../test/support/http-double';
import { startSilentServer } from '../../../test/support/silent-server';
import { appleState, AppStoreClient, AppStoreInvalidError, AppStoreUnavailableError } from './app-store.client';

const NOW = new Date('2026-11-18T03:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;
const tx = (fields: Partial<JWSTransactionDecodedPayload>): JWSTransactionDecodedPayload => ({
  productId: 'service.pro.monthly',
  transactionId: '2000000000000002',
  purchaseDate: NOW.getTime() - DAY_MS,
  expiresDate: NOW.getTime() + DAY_MS,
  signedDate: NOW.getTime() - 1000,
  ...fields,
});
const at = (inGrace: boolean) => ({ inGrace, environment: 'sandbox' as const, now: NOW });

describe('appleState', () => {
  it('serves until expiresDate, not at it', () => {
    expect(appleState('STATUS_1', tx({}), undefined, at(false))).toEqual({
      state: 'STATUS_1',
      productId: 'service.pro.monthly',
      expiryTime: new Date(NOW.getTime() + DAY_MS),
      serving: true,
      environment: 'sandbox',
      transactionId: '2000000000000002',
      revokedAt: null,
      signedAt: new Date(NOW.getTime() - 1000),
      linkedStoreRef: null,
      // A drop into this state would date from the start of the period in force.
      effectiveAt: new Date(NOW.getTime() - DAY_MS),
    });
    expect(appleState('STATUS_1', tx({ expiresDate: NOW.getTime() }), undefined, at(false)).serving).toBe(false);
  });

  it('serves until gracePeriodExpiresDate in the grace period, and ignores it otherwise', () => {
    const lapsed = tx({ expiresDate: NOW.getTime() - DAY_MS });
    const renewal: JWSRenewalInfoDecodedPayload = { gracePeriodExpiresDate: NOW.getTime() + 3 * DAY_MS };
    expect(appleState('STATUS_4', lapsed, renewal, at(true))).toMatchObject({
      expiryTime: new Date(NOW.getTime() + 3 * DAY_MS),
      serving: true,
    });
    expect(appleState('STATUS_3', lapsed, renewal, at(false)).serving).toBe(false);
  });

  it('never serves a revoked transaction, and dates its end from the revocation', () => {
    expect(appleState('STATUS_5', tx({ revocationDate: NOW.getTime() - 1 }), undefined, at(false))).toMatchObject({
      serving: false,
      revokedAt: new Date(NOW.getTime() - 1),
      effectiveAt: new Date(NOW.getTime() - 1),
    });
  });

  it("dates a lapse from the expiry, and takes the notification's signedDate over the transaction's", () => {
    const lapsed = tx({ expiresDate: NOW.getTime() - 60_000 });
    expect(appleState('EXPIRED', lapsed, undefined, { ...at(false), signedDate: NOW.getTime() - 5 })).toMatchObject({
      serving: false,
      effectiveAt: new Date(NOW.getTime() - 60_000),
      signedAt: new Date(NOW.getTime() - 5),
    });
  });

  it('never serves without an expiry', () => {
    expect(appleState('STATUS_1', tx({ expiresDate: undefined }), undefined, at(false))).toMatchObject({
      expiryTime: null,
      serving: false,
    });
  });
});

describe('AppStoreClient calls', () => {
  let api: HttpDouble;
  let dir: string;
  let client: AppStoreClient;
  let settings: ConstructorParameters<typeof AppStoreClient>[0];
  const calls: string[] = [];
  let answer: { status: number; body: unknown };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'apple-roots-'));
    const rootPath = path.join(dir, 'root.cer');
    writeFileSync(rootPath, new AppleSigningChain().root.der);
    api = await startHttpDouble((_req, res) => sendJson(res, answer.status, answer.body));
    const privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    settings = {
      bundleId: 'com.example.briefing',
      environment: 'Sandbox',
      issuerId: '57246542-96fe-1a63-e053-0824d011072a',
      keyId: 'TESTKEY123',
      privateKey,
      rootCertificatePaths: [rootPath],
      onlineChecks: false,
      apiBaseUrl: api.url,
    };
    client = new AppStoreClient(settings, (endpoint, result) => calls.push(`${endpoint} ${result}`));
  });
  afterAll(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives up on an API that accepts the connection and never answers, as unavailable', async () => {
    const silent = await startSilentServer();
    try {
      const bounded = new AppStoreClient({ ...settings, apiBaseUrl: silent.url }, undefined, 300);
      await expect(bounded.currentState('4', 'sandbox', new Date())).rejects.toBeInstanceOf(AppStoreUnavailableError);
      expect(silent.accepted()).toBe(1);
    } finally {
      await silent.close();
    }
  });

  it('tells its listener how each App Store Server API call went: answered, unknown purchase, or failed', async () => {
    // Answered: the call went well, whatever the verification of its contents says next.
    answer = {
      status: 200,
      body: { data: [{ lastTransactions: [{ status: 1, originalTransactionId: '1', signedTransactionInfo: 'not-signed' }] }] },
    };
    await expect(client.currentState('1', 'sandbox', new Date())).rejects.toBeInstanceOf(AppStoreInvalidError);
    answer = { status: 404, body: { errorCode: 4040010, errorMessage: 'Transaction id not found.' } };
    await expect(client.currentState('2', 'sandbox', new Date())).rejects.toBeInstanceOf(AppStoreInvalidError);
    answer = { status: 500, body: { errorCode: 5000000, errorMessage: 'error' } };
    await expect(client.currentState('3', 'sandbox', new Date())).rejects.toBeInstanceOf(AppStoreUnavailableError);
    expect(calls).toEqual([
      'getAllSubscriptionStatuses ok',
      'getAllSubscriptionStatuses invalid',
      'getAllSubscriptionStatuses unavailable',
    ]);
  });
});
