import { type PlaySubscription, playSubscriptionServes } from './google-play.client';

const NOW = new Date('2026-11-18T03:00:00.000Z');
const later = new Date(NOW.getTime() + 1);
const subscription = (state: string, expiryTime: Date | null): PlaySubscription => ({
  state,
  productId: 'service.pro.monthly',
  expiryTime,
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
