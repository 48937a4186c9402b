import { readFileSync } from 'node:fs';
import {
  APIException,
  AppStoreServerAPIClient,
  Environment,
  type JWSRenewalInfoDecodedPayload,
  type JWSTransactionDecodedPayload,
  type ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
  Status,
  VerificationException,
} from '@apple/app-store-server-library';
import type { AppConfig } from '../../config/app-config';
import type { StoreState } from './store-state';

/** A signature, chain, bundle or environment check failed, or Apple does not know the transaction. */
export class AppStoreInvalidError extends Error {}
/** Not configured, or the App Store Server API failed. */
export class AppStoreUnavailableError extends Error {}

/** How a store call went: answered, answered that the purchase is not ours or unknown, or failed. */
export type StoreCallResult = 'ok' | 'invalid' | 'unavailable';
const SUBSCRIPTION_STATUSES = 'getAllSubscriptionStatuses';

type FetchResponse = Awaited<ReturnType<AppStoreServerAPIClient['getAllSubscriptionStatuses']>>;

/**
 * The App Store Server API client at a configurable base URL. The library has no option
 * for it, so this overrides its one HTTP call (Node's fetch, same request otherwise).
 */
class AppStoreApi extends AppStoreServerAPIClient {
  constructor(
    signingKey: string,
    keyId: string,
    issuerId: string,
    bundleId: string,
    environment: Environment,
    private readonly baseUrl: string,
  ) {
    super(signingKey, keyId, issuerId, bundleId, environment);
  }

  protected override makeFetchRequest(
    path: string,
    query: URLSearchParams,
    method: string,
    body: string | Buffer | undefined,
    headers: Record<string, string>,
  ): ReturnType<AppStoreServerAPIClient['makeFetchRequest']> {
    // The caller reads only ok, status and json() of the answer.
    return fetch(`${this.baseUrl}${path}?${query.toString()}`, { method, body, headers }) as unknown as ReturnType<
      AppStoreServerAPIClient['makeFetchRequest']
    >;
  }
}

const APPLE_URLS: Record<'Production' | 'Sandbox', string> = {
  Production: 'https://api.storekit.itunes.apple.com',
  Sandbox: 'https://api.storekit-sandbox.itunes.apple.com',
};

/** Signed transactions and notifications of the iOS store, and the current state of a subscription. */
export class AppStoreClient {
  private readonly verifier: SignedDataVerifier | null = null;
  private readonly api: AppStoreApi | null = null;

  constructor(
    settings: AppConfig['subscriptions']['apple'],
    /** Told how each App Store Server API call went (the metrics). */
    private readonly onCall: (endpoint: string, result: StoreCallResult) => void = () => undefined,
  ) {
    const { bundleId, issuerId, keyId, privateKey, rootCertificatePaths } = settings;
    if (!bundleId || !issuerId || !keyId || !privateKey || rootCertificatePaths.length === 0) return;
    const environment = settings.environment === 'Sandbox' ? Environment.SANDBOX : Environment.PRODUCTION;
    const roots = rootCertificatePaths.map((path) => toDer(readSetting('APPLE_ROOT_CERTIFICATES', path)));
    this.verifier = new SignedDataVerifier(roots, settings.onlineChecks, environment, bundleId, settings.appAppleId);
    const key = privateKey.includes('-----BEGIN') ? privateKey : readSetting('APPLE_PRIVATE_KEY', privateKey).toString('utf8');
    const baseUrl = settings.apiBaseUrl?.replace(/\/$/, '') ?? APPLE_URLS[settings.environment];
    this.api = new AppStoreApi(key, keyId, issuerId, bundleId, environment, baseUrl);
  }

  get configured(): boolean {
    return this.verifier !== null;
  }

  /** Verifies a signed transaction the app sent; answers its original transaction id. */
  async originalTransactionIdOf(signedTransaction: string): Promise<string> {
    const transaction = await this.verified(() => this.requireVerifier().verifyAndDecodeTransaction(signedTransaction));
    if (!transaction.originalTransactionId) throw new AppStoreInvalidError('transaction without originalTransactionId');
    return transaction.originalTransactionId;
  }

  /** The current state of a subscription, from getAllSubscriptionStatuses. */
  async currentState(originalTransactionId: string, now: Date): Promise<StoreState> {
    if (!this.api) throw new AppStoreUnavailableError('iOS verification is not configured');
    let response: FetchResponse;
    try {
      response = await this.api.getAllSubscriptionStatuses(originalTransactionId);
    } catch (error) {
      // 4xx is about the transaction (unknown, malformed), except our key (401) and rate limits (429).
      const status = error instanceof APIException ? error.httpStatusCode : 0;
      if (status >= 400 && status < 500 && status !== 401 && status !== 429) {
        this.onCall(SUBSCRIPTION_STATUSES, 'invalid');
        throw new AppStoreInvalidError(`App Store answered ${status}`);
      }
      this.onCall(SUBSCRIPTION_STATUSES, 'unavailable');
      throw new AppStoreUnavailableError(`App Store request failed: ${(error as Error).message}`);
    }
    this.onCall(SUBSCRIPTION_STATUSES, 'ok');
    const item = (response.data ?? [])
      .flatMap((group) => group.lastTransactions ?? [])
      .find((last) => last.originalTransactionId === originalTransactionId);
    if (!item?.signedTransactionInfo) throw new AppStoreInvalidError('no such subscription');
    const transaction = await this.verified(() => this.requireVerifier().verifyAndDecodeTransaction(item.signedTransactionInfo!));
    const renewal = item.signedRenewalInfo
      ? await this.verified(() => this.requireVerifier().verifyAndDecodeRenewalInfo(item.signedRenewalInfo!))
      : undefined;
    const inGrace = item.status === Status.BILLING_GRACE_PERIOD;
    return appleState(`STATUS_${item.status ?? 'UNKNOWN'}`, transaction, renewal, inGrace, now);
  }

  async verifyNotification(signedPayload: string): Promise<ResponseBodyV2DecodedPayload> {
    return this.verified(() => this.requireVerifier().verifyAndDecodeNotification(signedPayload));
  }

  async verifyTransaction(signed: string): Promise<JWSTransactionDecodedPayload> {
    return this.verified(() => this.requireVerifier().verifyAndDecodeTransaction(signed));
  }

  async verifyRenewalInfo(signed: string): Promise<JWSRenewalInfoDecodedPayload> {
    return this.verified(() => this.requireVerifier().verifyAndDecodeRenewalInfo(signed));
  }

  private requireVerifier(): SignedDataVerifier {
    if (!this.verifier) throw new AppStoreUnavailableError('iOS verification is not configured');
    return this.verifier;
  }

  private async verified<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof VerificationException) throw new AppStoreInvalidError(`verification failed: ${error.status}`);
      throw error;
    }
  }
}

/**
 * A subscription's state from its signed transaction: it serves until expiresDate, or
 * until gracePeriodExpiresDate while in the billing grace period, unless revoked.
 */
export function appleState(
  state: string,
  transaction: JWSTransactionDecodedPayload,
  renewal: JWSRenewalInfoDecodedPayload | undefined,
  inGrace: boolean,
  now: Date,
): StoreState {
  const graceEnd = inGrace ? renewal?.gracePeriodExpiresDate : undefined;
  const until = graceEnd ?? transaction.expiresDate;
  const expiryTime = until === undefined ? null : new Date(until);
  return {
    state,
    productId: transaction.productId ?? null,
    expiryTime,
    serving: transaction.revocationDate === undefined && expiryTime !== null && expiryTime.getTime() > now.getTime(),
  };
}

/** A file a variable names; the error names the variable, never the content. */
function readSetting(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`${variable}: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

/** A root certificate file, PEM or DER, as DER. */
function toDer(content: Buffer): Buffer {
  const text = content.toString('latin1');
  if (!text.includes('-----BEGIN CERTIFICATE-----')) return content;
  return Buffer.from(text.replace(/-----[^-]+-----|\s/g, ''), 'base64');
}
