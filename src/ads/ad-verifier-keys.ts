import { Injectable, Logger } from '@nestjs/common';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { InjectConfig } from '../config/config.module';
import type { AdMobConfig } from './ads.config';

/** Keys are served from the cache for at most this long, as the ad network asks. */
export const VERIFIER_KEYS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/**
 * No two fetches closer than this: an unknown key_id triggers a refetch, and forged
 * key_ids must not turn the callback into a way of hammering the key server.
 */
export const VERIFIER_KEYS_MIN_REFETCH_MS = 60 * 1000;
/** One fetch of the keys, body included; past it the callback answers 503 AD_VERIFIER_KEYS_UNAVAILABLE. */
export const VERIFIER_KEYS_FETCH_TIMEOUT_MS = 5000;
const MAX_BODY_CHARS = 256 * 1024;

type FetchOutcome = 'fetched' | 'failed' | 'skipped';

interface PublishedKey {
  keyId?: unknown;
  pem?: unknown;
  base64?: unknown;
}

/**
 * The ad network's published ECDSA P-256 verifier keys (ADMOB_VERIFIER_KEYS_URL,
 * `{ keys: [{ keyId, pem, base64 }] }`), cached for at most 24 hours by the
 * injectable clock, refetched early for an unknown key_id, never more often than
 * once a minute. Concurrent callers share one fetch.
 */
@Injectable()
export class AdVerifierKeys {
  private readonly logger = new Logger(AdVerifierKeys.name);
  /** A field so tests can shorten it. */
  protected readonly fetchTimeoutMs: number = VERIFIER_KEYS_FETCH_TIMEOUT_MS;
  private keys = new Map<string, KeyObject>();
  /** When the cached keys were fetched; undefined until the first success. */
  private fetchedAt?: number;
  /** When the last fetch started, successful or not. */
  private attemptedAt?: number;
  private inFlight?: Promise<FetchOutcome>;

  constructor(
    @InjectConfig() private readonly config: { admob: AdMobConfig },
    private readonly clock: Clock,
  ) {}

  /**
   * The public key named `keyId`, or undefined when the key server does not
   * publish it. Throws AD_VERIFIER_KEYS_UNAVAILABLE (503) when the keys cannot be
   * had: the callback is then neither accepted nor refused.
   */
  async keyFor(keyId: string): Promise<KeyObject | undefined> {
    if (!this.isFresh()) {
      if ((await this.refreshIfAllowed()) !== 'fetched') throw unavailable();
    } else if (!this.keys.has(keyId)) {
      // Perhaps a key published since the last fetch; 'skipped' (fetched under a minute ago) means unknown.
      if ((await this.refreshIfAllowed()) === 'failed') throw unavailable();
    }
    return this.keys.get(keyId);
  }

  private isFresh(): boolean {
    return this.fetchedAt !== undefined && this.clock.nowMs() - this.fetchedAt < VERIFIER_KEYS_MAX_AGE_MS;
  }

  /** Joins the fetch in flight, else starts one unless the last began under a minute ago. */
  private refreshIfAllowed(): Promise<FetchOutcome> {
    if (this.inFlight !== undefined) return this.inFlight;
    const now = this.clock.nowMs();
    if (this.attemptedAt !== undefined && now - this.attemptedAt < VERIFIER_KEYS_MIN_REFETCH_MS) {
      return Promise.resolve('skipped');
    }
    this.attemptedAt = now;
    this.inFlight = this.fetchKeys().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<FetchOutcome> {
    const url = this.config.admob.verifierKeysUrl;
    try {
      const response = await fetch(url, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(this.fetchTimeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      const text = await response.text();
      if (text.length > MAX_BODY_CHARS) throw new Error('the key document is too large');
      const keys = parseKeyDocument(text, (problem) => this.logger.warn(`verifier key skipped: ${problem}`));
      if (keys.size === 0) throw new Error('the key document holds no usable key');
      this.keys = keys;
      this.fetchedAt = this.clock.nowMs();
      this.logger.log(`fetched ${keys.size} ad verifier key(s)`);
      return 'fetched';
    } catch (error) {
      this.logger.warn({ err: error }, `ad verifier keys could not be fetched from ${url}`);
      return 'failed';
    }
  }
}

/** The usable P-256 keys of a published key document, by key id. */
export function parseKeyDocument(text: string, skipped: (problem: string) => void = () => undefined): Map<string, KeyObject> {
  const document = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(document.keys)) throw new Error('the key document has no keys array');
  const keys = new Map<string, KeyObject>();
  for (const entry of document.keys as PublishedKey[]) {
    const keyId =
      typeof entry?.keyId === 'number' && Number.isSafeInteger(entry.keyId)
        ? String(entry.keyId)
        : typeof entry?.keyId === 'string' && /^\d{1,20}$/.test(entry.keyId)
          ? entry.keyId
          : undefined;
    if (keyId === undefined) {
      skipped('an entry without a numeric keyId');
      continue;
    }
    try {
      const key =
        typeof entry.pem === 'string'
          ? createPublicKey(entry.pem)
          : typeof entry.base64 === 'string'
            ? createPublicKey({ key: Buffer.from(entry.base64, 'base64'), format: 'der', type: 'spki' })
            : undefined;
      if (key === undefined) throw new Error('neither pem nor base64');
      if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
        throw new Error('not an ECDSA P-256 key');
      }
      keys.set(keyId, key);
    } catch (error) {
      skipped(`key ${keyId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return keys;
}

function unavailable(): AppError {
  return new AppError('AD_VERIFIER_KEYS_UNAVAILABLE', 'The ad network verifier keys are unavailable; retry later');
}
