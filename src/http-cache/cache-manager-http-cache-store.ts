import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { type Cache, createCache } from 'cache-manager';
import { Keyv } from 'keyv';
import { LRUCache } from 'lru-cache';
import { type HttpCacheEntry, HttpCacheStore } from './http-cache-store';

export interface MemoryLimits {
  /** Most entries kept; the least recently used goes first. */
  maxEntries: number;
  /** Most bytes of the entries' bodies kept in total. */
  maxBytes: number;
}

/** Room for every company page and many search pages, in at most 64 MB of JSON. */
export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { maxEntries: 10_000, maxBytes: 64 * 1024 * 1024 };

/** Changes when `HttpCacheEntry` does, so a shared store never hands an old shape to new code. */
const NAMESPACE = 'http-cache-v2';

/** What Keyv hands its store when it serializes nothing: the entry and its expiry. */
interface KeyvRecord {
  value: HttpCacheEntry;
  expires?: number;
}

/** The bytes an entry holds: its JSON body, or about its stored failure (small and rare). */
function entryBytes(entry: HttpCacheEntry): number {
  return Math.max(1, entry.kind === 'success' ? (entry.body?.length ?? 0) : JSON.stringify(entry.failure).length);
}

/**
 * The Map-like store Keyv expects. Keyv passes a TTL in milliseconds as a third
 * argument, which `LRUCache.set` would take for its options object.
 */
class KeyvLruAdapter {
  constructor(private readonly lru: LRUCache<string, KeyvRecord>) {}

  get(key: string): KeyvRecord | undefined {
    return this.lru.get(key);
  }

  set(key: string, value: KeyvRecord, ttlMs?: number): boolean {
    this.lru.set(key, value, ttlMs === undefined ? {} : { ttl: ttlMs });
    return true;
  }

  delete(key: string): boolean {
    return this.lru.delete(key);
  }

  clear(): void {
    this.lru.clear();
  }
}

/**
 * cache-manager over a Keyv whose in-memory map is an LRU, so a flood of distinct
 * URLs cannot exhaust memory; the size bound counts the bodies' bytes. In memory,
 * Keyv keeps the entries as they are: its default JSON serialization would write every
 * answer again, escaped inside a larger string (on each miss), and parse it back on
 * each read, for a store that needs neither. Entries are never changed once stored. A
 * Redis Keyv (with Keyv's default serialization) can take the LRU's place. Built by
 * `HttpCacheModule`'s factory (its limits are not an injectable).
 */
export class CacheManagerHttpCacheStore extends HttpCacheStore implements OnModuleDestroy {
  private readonly logger = new Logger('HttpCache');
  private readonly cache: Cache;

  constructor(limits: MemoryLimits = DEFAULT_MEMORY_LIMITS) {
    super();
    const lru = new LRUCache<string, KeyvRecord>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      sizeCalculation: (record) => entryBytes(record.value),
    });
    // Failed writes reach HttpCacheService, which logs them and answers without the cache.
    const keyv = new Keyv({
      store: new KeyvLruAdapter(lru),
      namespace: NAMESPACE,
      throwOnErrors: true,
      serialize: undefined,
      deserialize: undefined,
    });
    this.cache = createCache({ stores: [keyv] });
    // cache-manager turns a failed read into a miss and only reports it as an event.
    this.cache.on('get', ({ key, error }) => {
      if (error !== undefined) this.logger.warn({ err: error, key }, 'HTTP cache read failed; answering without it');
    });
  }

  async get(key: string): Promise<HttpCacheEntry | undefined> {
    return (await this.cache.get<HttpCacheEntry>(key)) ?? undefined;
  }

  async set(key: string, entry: HttpCacheEntry, ttlMs: number): Promise<void> {
    await this.cache.set(key, entry, ttlMs);
  }

  async delete(key: string): Promise<void> {
    await this.cache.del(key);
  }

  async clear(): Promise<void> {
    await this.cache.clear();
  }

  async onModuleDestroy(): Promise<void> {
    await this.cache.disconnect();
  }
}
