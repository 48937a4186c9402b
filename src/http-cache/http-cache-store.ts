import type { ErrorExtras } from '../common/errors/app-error';
import type { ErrorCode } from '../common/errors/error-codes';

/**
 * An error answer in a form any store can keep (plain JSON), from which the same
 * exception, and so through the exception filter the same status and body, is rebuilt.
 */
export type StoredFailure =
  | {
      type: 'app-error';
      code: ErrorCode;
      message: string;
      extras: ErrorExtras;
      retryAfterSeconds?: number;
    }
  | {
      type: 'http-exception';
      status: number;
      /** What `HttpException.getResponse()` gave: a string or a JSON object. */
      response: string | object;
      message: string;
    };

/** One cached answer. Freshness is judged by the service's `Clock` against `expiresAtMs`. */
export type HttpCacheEntry =
  | {
      kind: 'success';
      /**
       * The handler's result as JSON in UTF-8; `null` when it returned nothing. Bytes, so a
       * cached page lives outside the JS heap: a stream of misses then adds no copying work to
       * the young-generation collections (Keyv's default serializer keeps Buffers as base64).
       */
      body: Buffer | null;
      expiresAtMs: number;
    }
  | {
      kind: 'failure';
      failure: StoredFailure;
      expiresAtMs: number;
    };

/**
 * Where cached answers live. In process today; a shared store (Redis through Keyv)
 * implements the same contract when the service runs as several instances. `ttlMs`
 * only lets the store reclaim space: whether an entry is still fresh is decided by
 * the caller against `expiresAtMs`, with the injectable clock.
 */
export abstract class HttpCacheStore {
  abstract get(key: string): Promise<HttpCacheEntry | undefined>;
  abstract set(key: string, entry: HttpCacheEntry, ttlMs: number): Promise<void>;
  abstract delete(key: string): Promise<void>;
  abstract clear(): Promise<void>;
}
