import { OAuth2Client } from 'google-auth-library';
import { EnvReader } from '../../config/env-reader';
import { subscriptionsConfig } from '../subscriptions.config';
import { type HttpDouble, sendJson, startHttpDouble } from '../../../test/support/http-double';
import { startSilentServer } from '../../../test/support/silent-server';
import {
  GooglePlayClient,
  PlayPurchaseInvalidError,
  type PlaySubscription,
  playSubscriptionServes,
  PlayUnavailableError,
} from './google-play.client';

/** The subscriptions slice for these variables, as the application reads it. */
function configFor(env: Record<string, string>) {
  return { subscriptions: subscriptionsConfig(new EnvReader(env)) };
}

const NOW = new Date('2026-11-18T03:00:00.000Z');
const later = new Date(NOW.getTime() + 1);
const subscription = (state: string, expiryTime: Date | null): PlaySubscription => ({
  state,
  productId: 'service.pro.monthly',
  expiryTime,
  linkedPurchaseToken: null,
  testPurchase: false,
  latestOrderId: 'GPA.3315-1326-8982-37036..0',
});

describe('playSubscriptionServes', () => {
  it.each(['SUBSCRIPTION_STATE_ACTIVE', 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD', 'SUBSCRIPTION_STATE_CANCELED'])(
    'serves %s until the expiry, not at it',
    (state) => {
      expect(playSubscriptionServes(subscription(state, later), NOW)).toBe(true);
      expect(playSubscriptionServes(subscription(state, NOW), NOW)).toBe(false);
    },
  );

  it.each([
    'SUBSCRIPTION_STATE_ON_HOLD',
    'SUBSCRIPTION_STATE_PAUSED',
    'SUBSCRIPTION_STATE_EXPIRED',
    'SUBSCRIPTION_STATE_PENDING',
    'SUBSCRIPTION_STATE_UNSPECIFIED',
  ])('never serves %s, even before the expiry', (state) => {
    expect(playSubscriptionServes(subscription(state, later), NOW)).toBe(false);
  });

  it('never serves without an expiry', () => {
    expect(playSubscriptionServes(subscription('SUBSCRIPTION_STATE_ACTIVE', null), NOW)).toBe(false);
  });
});

describe('GooglePlayClient calls', () => {
  let play: HttpDouble;
  let client: GooglePlayClient;
  const calls: string[] = [];
  let status = 200;

  beforeAll(async () => {
    play = await startHttpDouble((_req, res) =>
      status === 200
        ? sendJson(res, 200, { subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE', lineItems: [] })
        : sendJson(res, status, { error: { code: status } }),
    );
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: 'play-access-token', expiry_date: Date.now() + 3_600_000 });
    const config = configFor({ GOOGLE_PLAY_PACKAGE_NAME: 'com.example.briefing', GOOGLE_PLAY_API_BASE_URL: `${play.url}/` });
    client = new GooglePlayClient(config, auth, (endpoint, result) => calls.push(`${endpoint} ${result}`));
  });
  afterAll(() => play?.close());

  it('tells its listener how each Play Developer API call went: answered, not a purchase of ours, or failed', async () => {
    await client.getSubscription('token-1');
    status = 410;
    await expect(client.getSubscription('token-2')).rejects.toBeInstanceOf(PlayPurchaseInvalidError);
    status = 503;
    await expect(client.getSubscription('token-3')).rejects.toBeInstanceOf(PlayUnavailableError);
    expect(calls).toEqual([
      'purchases.subscriptionsv2.get ok',
      'purchases.subscriptionsv2.get invalid',
      'purchases.subscriptionsv2.get unavailable',
    ]);
  });
});

describe('GooglePlayClient timeout', () => {
  it('gives up on a store that accepts the connection and never answers, as unavailable', async () => {
    const silent = await startSilentServer();
    try {
      const auth = new OAuth2Client();
      auth.setCredentials({ access_token: 'play-access-token', expiry_date: Date.now() + 3_600_000 });
      const config = configFor({ GOOGLE_PLAY_PACKAGE_NAME: 'com.example.briefing', GOOGLE_PLAY_API_BASE_URL: `${silent.url}/` });
      const calls: string[] = [];
      const client = new GooglePlayClient(config, auth, (endpoint, result) => calls.push(`${endpoint} ${result}`), 300);

      await expect(client.getSubscription('token')).rejects.toBeInstanceOf(PlayUnavailableError);
      expect(silent.accepted()).toBe(1);
      expect(calls).toEqual(['purchases.subscriptionsv2.get unavailable']);
    } finally {
      await silent.close();
    }
  });
});
