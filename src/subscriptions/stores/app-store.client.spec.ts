import type { JWSRenewalInfoDecodedPayload, JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import { appleState } from './app-store.client';

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
