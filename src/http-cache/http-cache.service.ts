import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { kstDate, startOfNextKstDay } from '../common/korea-time';
import { HttpCacheFastLane } from './http-cache-fast-lane';
import { httpCacheKey } from './http-cache-key';
import { cacheControlFor, FAILURE_TTL_SECONDS, type HttpCachePolicy } from './http-cache-policy';
import { type HttpCacheEntry, HttpCacheStore, type StoredFailure } from './http-cache-store';
import { reviveFailure, toStoredFailure } from './stored-failure';

/** What one request answers with, and for how long clients may reuse it (`null`: not at all). */
export type HttpCacheOutcome =
  /** `body`: the stored UTF-8 JSON of the answer, sent as it is; null for an empty answer. */
  | { ok: true; body: Buffer | null; maxAgeSeconds: number }
  | {
      ok: false;
      error: unknown;
      maxAgeSeconds: number | null;
      /**
       * Set for an unexpected fault: stores the answer the exception filter gave it
       * (see `failureFromErrorAnswer`), so the next requests get it for `FAILURE_TTL_SECONDS`.
       */
      rememberAnswer?: (failure: StoredFailure) => Promise<void>;
    };

/** How one lookup-or-execution ended, shared by every request that joined it. */
interface Settlement {
  /** Absent for an unexpected fault: its answer is known only once the filter has sent it. */
  entry?: HttpCacheEntry;
  /** Set when this very execution threw: its joiners rethrow the original exception. */
  thrown?: { error: unknown };
  /** The entry was read from the store: the URL has been answered before. */
  stored?: boolean;
}

/**
 * Answers cacheable GET requests from the store, or runs the handler once for all
 * identical requests that arrive meanwhile. 2xx answers live for the route's TTL,
 * error answers for `FAILURE_TTL_SECONDS`: `AppError` and `HttpException` from the
 * exception, unexpected faults from the sanitised answer the exception filter sent.
 */
@Injectable()
export class HttpCacheService {
  private readonly logger = new Logger('HttpCache');
  /** Lookups and executions under way, by key. Each removes itself when it settles. */
  private readonly inFlight = new Map<string, Promise<Settlement>>();
  /** Moves on every clear() and evict(): an answer remembered after it may be outdated. */
  private generation = 0;

  constructor(
    private readonly store: HttpCacheStore,
    private readonly clock: Clock,
    private readonly fastLane: HttpCacheFastLane,
  ) {}

  /**
   * `url` is the request's original URL (path and query); `run` executes the handler.
   * With `fastLane`, a 2xx answer read from the store is also prepared for
   * HttpCacheFastLane under `url`, on behalf of `fastLane.route`, for as long as the
   * entry is fresh. A fresh execution prepares nothing: most URLs asked once are never
   * asked again, and preparing costs a copy of the body and its hash; the first hit does it.
   */
  async answer(url: string, policy: HttpCachePolicy, run: () => Promise<unknown>, fastLane?: { route: string }): Promise<HttpCacheOutcome> {
    const key = this.keyOf(url, policy);
    const generation = this.generation;
    let settlement: Settlement;
    try {
      settlement = await this.join(key, policy.ttlSeconds, run);
    } catch (error) {
      return { ok: false, error, maxAgeSeconds: null };
    }
    const { entry, thrown, stored } = settlement;
    if (entry === undefined) {
      return {
        ok: false,
        error: thrown?.error,
        maxAgeSeconds: FAILURE_TTL_SECONDS,
        rememberAnswer: (failure) => this.remember(key, generation, failure),
      };
    }
    if (entry.kind === 'success') {
      if (fastLane !== undefined && stored === true && entry.body !== null && generation === this.generation) {
        // A day-keyed entry ends at midnight KST, when its key changes.
        const dayEnd = policy.perKstDay ? startOfNextKstDay(this.clock.now()).getTime() : Infinity;
        this.fastLane.prepare(url, {
          body: entry.body,
          cacheControl: cacheControlFor(policy.ttlSeconds),
          route: fastLane.route,
          expiresAtMs: Math.min(entry.expiresAtMs, dayEnd),
        });
      }
      // Everyone, the executing request included, gets the stored bytes, so a hit cannot
      // differ from the miss and costs neither a parse, a re-serialisation nor an encoding.
      return { ok: true, body: entry.body, maxAgeSeconds: policy.ttlSeconds };
    }
    const error = thrown ? thrown.error : reviveFailure(entry.failure);
    return { ok: false, error, maxAgeSeconds: FAILURE_TTL_SECONDS };
  }

  /** Forgets every cached answer. Executions under way still answer their waiters but store nothing. */
  async clear(): Promise<void> {
    this.generation++;
    this.inFlight.clear();
    this.fastLane.clear();
    await this.store.clear();
  }

  /**
   * Forgets the answer to one URL as clients send it, e.g. `/api/v1/companies/00126380`
   * (of a route without `perKstDay`, whose keys also carry the day).
   */
  async evict(url: string): Promise<void> {
    this.generation++;
    // Prepared answers are keyed by the URL as each client spelled it: forget them all.
    this.fastLane.clear();
    const key = httpCacheKey(url);
    this.inFlight.delete(key);
    await this.store.delete(key);
  }

  private keyOf(url: string, policy: HttpCachePolicy): string {
    const key = httpCacheKey(url);
    // '#' never occurs in a request URL, so a day-keyed entry cannot collide with a path.
    return policy.perKstDay ? `${key}#kst=${kstDate(this.clock.now())}` : key;
  }

  private async remember(key: string, generation: number, failure: StoredFailure): Promise<void> {
    if (generation !== this.generation) return;
    await this.write(key, { kind: 'failure', failure, expiresAtMs: this.clock.nowMs() + FAILURE_TTL_SECONDS * 1000 });
  }

  private join(key: string, ttlSeconds: number, run: () => Promise<unknown>): Promise<Settlement> {
    const current = this.inFlight.get(key);
    if (current !== undefined) return current;
    const isCurrent = () => this.inFlight.get(key) === flight;
    const flight: Promise<Settlement> = this.lookupOrRun(key, ttlSeconds, run, isCurrent).finally(() => {
      // Cleared on success and failure alike, so a failed execution is never joined later.
      if (isCurrent()) this.inFlight.delete(key);
    });
    this.inFlight.set(key, flight);
    return flight;
  }

  private async lookupOrRun(key: string, ttlSeconds: number, run: () => Promise<unknown>, isCurrent: () => boolean): Promise<Settlement> {
    const cached = await this.read(key);
    if (cached !== undefined && cached.expiresAtMs > this.clock.nowMs()) return { entry: cached, stored: true };

    let entry: HttpCacheEntry;
    let thrown: Settlement['thrown'];
    try {
      const result = await run();
      const json = result === undefined ? undefined : JSON.stringify(result);
      entry = {
        kind: 'success',
        body: json === undefined ? null : Buffer.from(json, 'utf8'),
        expiresAtMs: this.clock.nowMs() + ttlSeconds * 1000,
      };
    } catch (error) {
      const failure = toStoredFailure(error);
      // An unexpected fault: shared with the joiners now, stored once the filter answered it.
      if (failure === undefined) return { thrown: { error } };
      entry = { kind: 'failure', failure, expiresAtMs: this.clock.nowMs() + FAILURE_TTL_SECONDS * 1000 };
      thrown = { error };
    }
    // A clear() or evict() during the execution means its answer may already be outdated.
    if (isCurrent()) await this.write(key, entry);
    return { entry, thrown };
  }

  /** A store that cannot be read (a shared store being down) means a miss, not a failed request. */
  private async read(key: string): Promise<HttpCacheEntry | undefined> {
    try {
      return await this.store.get(key);
    } catch (error) {
      this.logger.warn({ err: error, key }, 'HTTP cache read failed; answering without it');
      return undefined;
    }
  }

  private async write(key: string, entry: HttpCacheEntry): Promise<void> {
    try {
      await this.store.set(key, entry, entry.expiresAtMs - this.clock.nowMs());
    } catch (error) {
      this.logger.warn({ err: error, key }, 'HTTP cache write failed; the answer is not cached');
    }
  }
}
