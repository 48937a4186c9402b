import { androidpublisher, type androidpublisher_v3 } from '@googleapis/androidpublisher';
import { GoogleAuth, type OAuth2Client } from 'google-auth-library';
import { readFirebaseServiceAccount } from '../../attestation/firebase-service-account';
import type { SubscriptionsConfig } from '../subscriptions.config';
import type { StoreCallResult } from './app-store.client';
import type { StoreState } from './store-state';

/** What the Play Developer API says about one purchase token. */
export interface PlaySubscription {
  /** `SUBSCRIPTION_STATE_…` of subscriptionsv2. */
  state: string;
  /** The product of the line item that expires last. */
  productId: string | null;
  expiryTime: Date | null;
  /** The purchase this one replaced (an upgrade, downgrade or resubscription issues a new token). */
  linkedPurchaseToken: string | null;
  /** A license tester's purchase: nothing was paid. */
  testPurchase: boolean;
  latestOrderId: string | null;
}

/** The store answered that the token is not a purchase of this app (HTTP 400/404/410). */
export class PlayPurchaseInvalidError extends Error {}
/** The store is not configured, refused our credentials, or failed. */
export class PlayUnavailableError extends Error {}

/** The auth client the Play Developer API is called with; tests override it. */
export const GOOGLE_PLAY_AUTH = Symbol('GOOGLE_PLAY_AUTH');

const SCOPE = 'https://www.googleapis.com/auth/androidpublisher';
/** A bound on each Play Developer API call. */
const API_TIMEOUT_MS = 10_000;
const SUBSCRIPTIONS_GET = 'purchases.subscriptionsv2.get';

/** The auth client of GOOGLE_PLAY_SERVICE_ACCOUNT, or null while Android verification is off. */
export function createPlayAuth(config: { subscriptions: SubscriptionsConfig }): GoogleAuth | OAuth2Client | null {
  const { serviceAccount } = config.subscriptions.googlePlay;
  if (!serviceAccount) return null;
  let account: { client_email: string; private_key: string };
  try {
    // Same JSON-or-path rule and fields as the Firebase key.
    account = readFirebaseServiceAccount(serviceAccount);
  } catch (error) {
    throw new Error((error as Error).message.replace('FIREBASE_SERVICE_ACCOUNT', 'GOOGLE_PLAY_SERVICE_ACCOUNT'));
  }
  return new GoogleAuth({
    credentials: { client_email: account.client_email, private_key: account.private_key },
    scopes: [SCOPE],
    // The access-token request is an outbound call too: bounded, on Node's own fetch.
    clientOptions: { transporterOptions: { timeout: API_TIMEOUT_MS, fetchImplementation: fetch } },
  });
}

/** `purchases.subscriptionsv2.get` for the configured package. */
export class GooglePlayClient {
  private readonly api: androidpublisher_v3.Androidpublisher | null;
  private readonly packageName: string | undefined;

  constructor(
    config: { subscriptions: SubscriptionsConfig },
    auth: GoogleAuth | OAuth2Client | null,
    /** Told how each Play Developer API call went (the metrics). */
    private readonly onCall: (endpoint: string, result: StoreCallResult) => void = () => undefined,
    /** The bound on each call; tests shorten it. */
    timeoutMs = API_TIMEOUT_MS,
  ) {
    const packageName = config.subscriptions.googlePlay.packageName;
    this.packageName = packageName;
    this.api =
      auth && packageName
        ? androidpublisher({
            version: 'v3',
            auth,
            rootUrl: config.subscriptions.googlePlay.apiBaseUrl,
            retry: false,
            timeout: timeoutMs,
            // Node's own fetch: gaxios would otherwise import() node-fetch, an ES module
            // that Jest's CommonJS runtime cannot load.
            fetchImplementation: fetch,
          })
        : null;
  }

  get configured(): boolean {
    return this.api !== null;
  }

  async getSubscription(purchaseToken: string): Promise<PlaySubscription> {
    if (!this.api || !this.packageName) throw new PlayUnavailableError('Android verification is not configured');
    let data: androidpublisher_v3.Schema$SubscriptionPurchaseV2;
    try {
      ({ data } = await this.api.purchases.subscriptionsv2.get({ packageName: this.packageName, token: purchaseToken }));
    } catch (error) {
      const failure = error as { status?: number; response?: { status?: number } };
      const status = failure.response?.status ?? failure.status;
      if (status === 400 || status === 404 || status === 410) {
        this.onCall(SUBSCRIPTIONS_GET, 'invalid');
        throw new PlayPurchaseInvalidError(`Play answered ${status}`);
      }
      this.onCall(SUBSCRIPTIONS_GET, 'unavailable');
      throw new PlayUnavailableError(`Play request failed${status ? ` with ${status}` : `: ${(error as Error).message}`}`, {
        cause: error,
      });
    }
    this.onCall(SUBSCRIPTIONS_GET, 'ok');
    const latest = (data.lineItems ?? [])
      .filter((item) => item.expiryTime)
      .sort((a, b) => Date.parse(b.expiryTime!) - Date.parse(a.expiryTime!))[0];
    return {
      state: data.subscriptionState ?? 'SUBSCRIPTION_STATE_UNSPECIFIED',
      productId: latest?.productId ?? data.lineItems?.[0]?.productId ?? null,
      expiryTime: latest ? new Date(latest.expiryTime!) : null,
      linkedPurchaseToken: data.linkedPurchaseToken ?? null,
      testPurchase: data.testPurchase !== undefined && data.testPurchase !== null,
      // latestOrderId is deprecated (and absent from the typings) in favour of the line item's.
      latestOrderId: latest?.latestSuccessfulOrderId ?? (data as { latestOrderId?: string }).latestOrderId ?? null,
    };
  }
}

/** Active, in grace, and canceled-but-paid-until-expiry keep the service. */
const SERVING_STATES = new Set(['SUBSCRIPTION_STATE_ACTIVE', 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD', 'SUBSCRIPTION_STATE_CANCELED']);

export function playSubscriptionServes(subscription: PlaySubscription, now: Date): boolean {
  return SERVING_STATES.has(subscription.state) && subscription.expiryTime !== null && subscription.expiryTime.getTime() > now.getTime();
}

/**
 * A purchase's state as re-read at `now`. Play has no signed time: the re-read is the
 * newest word on the purchase, and `eventAt` (the notification's eventTimeMillis, when
 * there is one) is when the reported change took effect.
 */
export function playState(subscription: PlaySubscription, now: Date, eventAt?: Date): StoreState {
  const serving = playSubscriptionServes(subscription, now);
  const lapsedAt = !serving && subscription.expiryTime && subscription.expiryTime < now ? subscription.expiryTime : null;
  return {
    state: subscription.state,
    productId: subscription.productId,
    expiryTime: subscription.expiryTime,
    serving,
    environment: subscription.testPurchase ? 'sandbox' : 'production',
    transactionId: subscription.latestOrderId,
    revokedAt: null,
    signedAt: now,
    linkedStoreRef: subscription.linkedPurchaseToken,
    effectiveAt: lapsedAt ?? (eventAt && eventAt < now ? eventAt : now),
  };
}
