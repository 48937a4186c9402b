import { CacheManagerHttpCacheStore } from './cache-manager-http-cache-store';
import type { HttpCacheEntry } from './http-cache-store';

function entry(body: string): HttpCacheEntry {
  return { kind: 'success', body: Buffer.from(JSON.stringify(body)), expiresAtMs: 1_000 };
}

const MINUTE_MS = 60_000;

describe('CacheManagerHttpCacheStore', () => {
  it('keeps, returns, deletes and clears entries', async () => {
    const store = new CacheManagerHttpCacheStore();
    await store.set('/a', entry('a'), MINUTE_MS);
    const notFound: HttpCacheEntry = {
      kind: 'failure',
      failure: { type: 'app-error', code: 'NOT_FOUND', message: 'gone', extras: {} },
      expiresAtMs: 9,
    };
    await store.set('/b', notFound, MINUTE_MS);

    expect(await store.get('/a')).toEqual(entry('a'));
    expect(await store.get('/b')).toEqual(notFound);
    expect(await store.get('/c')).toBeUndefined();

    await store.delete('/a');
    expect(await store.get('/a')).toBeUndefined();
    expect(await store.get('/b')).toBeDefined();

    await store.clear();
    expect(await store.get('/b')).toBeUndefined();
  });

  it('keeps the entry itself, not a serialized copy to parse on every read', async () => {
    const store = new CacheManagerHttpCacheStore();
    const stored = entry('page');
    await store.set('/page', stored, MINUTE_MS);
    expect(await store.get('/page')).toBe(stored);
  });

  it('drops the least recently used entry beyond the entry limit', async () => {
    const store = new CacheManagerHttpCacheStore({ maxEntries: 2, maxBytes: 1_000_000 });
    await store.set('/a', entry('a'), MINUTE_MS);
    await store.set('/b', entry('b'), MINUTE_MS);
    await store.get('/a');
    await store.set('/c', entry('c'), MINUTE_MS);

    expect(await store.get('/a')).toEqual(entry('a'));
    expect(await store.get('/b')).toBeUndefined();
    expect(await store.get('/c')).toEqual(entry('c'));
  });

  it('drops old entries to stay within the size limit, and never keeps one larger than it', async () => {
    const store = new CacheManagerHttpCacheStore({ maxEntries: 1_000, maxBytes: 1_000 });
    for (let i = 0; i < 10; i++) await store.set(`/page/${i}`, entry('x'.repeat(200)), MINUTE_MS);

    const kept = [];
    for (let i = 0; i < 10; i++) if ((await store.get(`/page/${i}`)) !== undefined) kept.push(i);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(5);
    expect(kept).toContain(9);

    await store.set('/huge', entry('x'.repeat(2_000)), MINUTE_MS);
    expect(await store.get('/huge')).toBeUndefined();
  });
});
