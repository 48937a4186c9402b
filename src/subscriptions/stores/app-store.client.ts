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
  VerificationStatus,
} from '@apple/app-store-server-library';
import type { SubscriptionsConfig } from '../subscriptions.config';
import type { StoreEnvironment, StoreState } from './store-state';

/** A signature, chain, bundle or environment check failed, or Apple does not know the transaction. */
export class AppStoreInvalidError extends Error {}
/** Not configured, the App Store Server API failed, or a certificate revocation check could not be made. */
export class AppStoreUnavailableError extends Error {}

/** How a store call went: answered, answered that the purchase is not ours or unknown, or failed. */
export type StoreCallResult = 'ok' | 'invalid' | 'unavailable';
const SUBSCRIPTION_STATUSES = 'getAllSubscriptionStatuses';

type FetchResponse = Awaited<ReturnType<AppStoreServerAPIClient['getAllSubscriptionStatuses']>>;

/**
 * The App Store Server API client at a configurable base URL and with a timeout. The
 * library has no option for either, so this overrides its one HTTP call (Node's fetch,
 * same request otherwise).
 */
class AppStoreApi extends AppStoreServerAPIClient {
  constructor(
    signingKey: string,
    keyId: string,
    issuerId: string,
    bundleId: string,
    environment: Environment,
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
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
    const signal = AbortSignal.timeout(this.timeoutMs);
    return fetch(`${this.baseUrl}${path}?${query.toString()}`, { method, body, headers, signal }) as unknown as ReturnType<
      AppStoreServerAPIClient['makeFetchRequest']
    >;
  }
}

const APPLE_URLS: Record<StoreEnvironment, string> = {
  production: 'https://api.storekit.itunes.apple.com',
  sandbox: 'https://api.storekit-sandbox.itunes.apple.com',
};
const LIBRARY_ENVIRONMENT: Record<StoreEnvironment, Environment> = {
  production: Environment.PRODUCTION,
  sandbox: Environment.SANDBOX,
};
/** A bound on each App Store Server API call (the library sets none). */
const API_TIMEOUT_MS = 10_000;

/** A payload or transaction as verified, with the environment it verified in. */
export interface VerifiedInEnvironment<T> {
  value: T;
  environment: StoreEnvironment;
}

/**
 * Signed transactions and notifications of the iOS store, and the current state of a
 * subscription. A production deployment accepts both environments: App Review and
 * TestFlight buy in the sandbox against the production app, so each payload is verified
 * against its own environment (production first, then sandbox) and the API of that
 * environment is asked about it. APPLE_ENVIRONMENT=Sandbox accepts the sandbox only.
 */
export class AppStoreClient {
  private readonly environments: StoreEnvironment[] = [];
  private readonly verifiers = new Map<StoreEnvironment, SignedDataVerifier>();
  private readonly apis = new Map<StoreEnvironment, AppStoreApi>();

  constructor(
    settings: SubscriptionsConfig['apple'],
    /** Told how each App Store Server API call went (the metrics). */
    private readonly onCall: (endpoint: string, result: StoreCallResult) => void = () => undefined,
    /** The bound on each API call; tests shorten it. */
    timeoutMs = API_TIMEOUT_MS,
  ) {
    const { bundleId, issuerId, keyId, privateKey, rootCertificatePaths } = settings;
    if (!bundleId || !issuerId || !keyId || !privateKey || rootCertificatePaths.length === 0) return;
    const roots = rootCertificatePaths.map((path) => toDer(readSetting('APPLE_ROOT_CERTIFICATES', path)));
    const key = privateKey.includes('-----BEGIN') ? privateKey : readSetting('APPLE_PRIVATE_KEY', privateKey).toString('utf8');
    this.environments = settings.environment === 'Sandbox' ? ['sandbox'] : ['production', 'sandbox'];
    for (const environment of this.environments) {
      const libraryEnvironment = LIBRARY_ENVIRONMENT[environment];
      this.verifiers.set(
        environment,
        new SignedDataVerifier(roots, settings.onlineChecks, libraryEnvironment, bundleId, settings.appAppleId),
      );
      const baseUrl = settings.apiBaseUrl?.replace(/\/$/, '') ?? APPLE_URLS[environment];
      this.apis.set(environment, new AppStoreApi(key, keyId, issuerId, bundleId, libraryEnvironment, baseUrl, timeoutMs));
    }
  }

  get configured(): boolean {
    return this.environments.length > 0;
  }

  /** Verifies a signed transaction the app sent: its original transaction id and environment. */
  async originalTransactionOf(signedTransaction: string): Promise<{ originalTransactionId: string; environment: StoreEnvironment }> {
    const { value: transaction, environment } = await this.verifiedInOwnEnvironment((verifier) =>
      verifier.verifyAndDecodeTransaction(signedTransaction),
    );
    if (!transaction.originalTransactionId) throw new AppStoreInvalidError('transaction without originalTransactionId');
    return { originalTransactionId: transaction.originalTransactionId, environment };
  }

  /** The current state of a subscription, from getAllSubscriptionStatuses of its environment. */
  async currentState(originalTransactionId: string, environment: StoreEnvironment, now: Date): Promise<StoreState> {
    const api = this.apis.get(environment);
    if (!api) throw new AppStoreUnavailableError('iOS verification is not configured');
    let response: FetchResponse;
    try {
      response = await api.getAllSubscriptionStatuses(originalTransactionId);
    } catch (error) {
      // 4xx is about the transaction (unknown, malformed), except our key (401) and rate limits (429).
      const status = error instanceof APIException ? error.httpStatusCode : 0;
      if (status >= 400 && status < 500 && status !== 401 && status !== 429) {
        this.onCall(SUBSCRIPTION_STATUSES, 'invalid');
        throw new AppStoreInvalidError(`App Store answered ${status}`);
      }
      this.onCall(SUBSCRIPTION_STATUSES, 'unavailable');
      throw new AppStoreUnavailableError(`App Store request failed: ${(error as Error).message}`, { cause: error });
    }
    this.onCall(SUBSCRIPTION_STATUSES, 'ok');
    const item = (response.data ?? [])
      .flatMap((group) => group.lastTransactions ?? [])
      .find((last) => last.originalTransactionId === originalTransactionId);
    if (!item?.signedTransactionInfo) throw new AppStoreInvalidError('no such subscription');
    const transaction = await this.verifiedIn(environment, (verifier) => verifier.verifyAndDecodeTransaction(item.signedTransactionInfo!));
    const renewal = item.signedRenewalInfo
      ? await this.verifiedIn(environment, (verifier) => verifier.verifyAndDecodeRenewalInfo(item.signedRenewalInfo!))
      : undefined;
    const inGrace = item.status === Status.BILLING_GRACE_PERIOD;
    // Apple's word on the status decides over the dates.
    const ended = item.status === Status.EXPIRED || item.status === Status.REVOKED;
    return appleState(`STATUS_${item.status ?? 'UNKNOWN'}`, transaction, renewal, { inGrace, ended, environment, now });
  }

  verifyNotification(signedPayload: string): Promise<VerifiedInEnvironment<ResponseBodyV2DecodedPayload>> {
    return this.verifiedInOwnEnvironment((verifier) => verifier.verifyAndDecodeNotification(signedPayload));
  }

  verifyTransaction(environment: StoreEnvironment, signed: string): Promise<JWSTransactionDecodedPayload> {
    return this.verifiedIn(environment, (verifier) => verifier.verifyAndDecodeTransaction(signed));
  }

  verifyRenewalInfo(environment: StoreEnvironment, signed: string): Promise<JWSRenewalInfoDecodedPayload> {
    return this.verifiedIn(environment, (verifier) => verifier.verifyAndDecodeRenewalInfo(signed));
  }

  /** Production first, then sandbox: the library refuses a payload of the other environment with INVALID_ENVIRONMENT. */
  private async verifiedInOwnEnvironment<T>(run: (verifier: SignedDataVerifier) => Promise<T>): Promise<VerifiedInEnvironment<T>> {
    if (!this.configured) throw new AppStoreUnavailableError('iOS verification is not configured');
    for (const environment of this.environments) {
      try {
        return { value: await run(this.verifiers.get(environment)!), environment };
      } catch (error) {
        if (error instanceof VerificationException && error.status === VerificationStatus.INVALID_ENVIRONMENT) continue;
        throw verificationError(error);
      }
    }
    throw new AppStoreInvalidError(`verification failed: not an environment this deployment accepts (${this.environments.join(', ')})`);
  }

  private async verifiedIn<T>(environment: StoreEnvironment, run: (verifier: SignedDataVerifier) => Promise<T>): Promise<T> {
    const verifier = this.verifiers.get(environment);
    if (!verifier) throw new AppStoreInvalidError(`verification failed: ${environment} is not accepted here`);
    try {
      return await run(verifier);
    } catch (error) {
      throw verificationError(error);
    }
  }
}

/**
 * A failed check is the payload's fault (401/402), except a revocation (OCSP) check that
 * could not be made: Apple is unavailable then, and the caller answers 503.
 */
function verificationError(error: unknown): unknown {
  if (!(error instanceof VerificationException)) return error;
  if (error.status === VerificationStatus.RETRYABLE_VERIFICATION_FAILURE) {
    return new AppStoreUnavailableError(`certificate revocation check failed: ${error.cause?.message ?? 'no answer'}`, { cause: error });
  }
  return new AppStoreInvalidError(`verification failed: ${VerificationStatus[error.status] ?? error.status}`);
}

/**
 * A subscription's state from its signed transaction: it serves until expiresDate, or
 * until gracePeriodExpiresDate while in the billing grace period, unless revoked or
 * `ended` (an EXPIRED, REFUND or REVOKE notification, Apple's expired or revoked status).
 */
export function appleState(
  state: string,
  transaction: JWSTransactionDecodedPayload,
  renewal: JWSRenewalInfoDecodedPayload | undefined,
  context: { inGrace: boolean; ended?: boolean; environment: StoreEnvironment; now: Date; signedDate?: number },
): StoreState {
  const now = context.now.getTime();
  const graceEnd = context.inGrace ? renewal?.gracePeriodExpiresDate : undefined;
  const until = graceEnd ?? transaction.expiresDate;
  const expiryTime = until === undefined ? null : new Date(until);
  const revokedAt = transaction.revocationDate === undefined ? null : new Date(transaction.revocationDate);
  const serving = !context.ended && revokedAt === null && expiryTime !== null && expiryTime.getTime() > now;
  const signedAt = new Date(context.signedDate ?? transaction.signedDate ?? now);
  // The drop, if this state drops the tier, happened at the revocation, the expiry, the
  // report of an early end, or the start of the period in force (a renewal into a lower product).
  const lapsedAt = expiryTime !== null && expiryTime.getTime() <= now ? expiryTime : signedAt;
  const effective = revokedAt ?? (serving ? dateOf(transaction.purchaseDate) : lapsedAt) ?? signedAt;
  return {
    state,
    productId: transaction.productId ?? null,
    expiryTime,
    serving,
    environment: context.environment,
    transactionId: transaction.transactionId ?? null,
    revokedAt,
    signedAt,
    linkedStoreRef: null,
    effectiveAt: new Date(Math.min(effective.getTime(), now)),
  };
}

function dateOf(millis: number | undefined): Date | null {
  return millis === undefined ? null : new Date(millis);
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
