import { Logger } from '@nestjs/common';
import { FakeClock } from '../../test/support/fake-clock';
import { AppError } from '../common/errors/app-error';
import { HttpCache } from './http-cache.decorator';
import { type HttpCacheEntry, HttpCacheStore } from './http-cache-store';
import { HttpCacheService } from './http-cache.service';
import { HttpCacheFastLane } from './http-cache-fast-lane';
import { Metrics } from '../metrics/metrics';

/** A clock that stays at one instant. */
class FixedClock extends FakeClock {
  constructor() {
    super(new Date('2025-06-02T00:00:00Z'));
  }
}

/** A shared store that is down. */
class UnreachableStore extends HttpCacheStore {
  get(): Promise<HttpCacheEntry | undefined> {
    return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
  }
  set(): Promise<void> {
    return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
  }
  delete(): Promise<void> {
    return Promise.resolve();
  }
  clear(): Promise<void> {
    return Promise.resolve();
  }
}

/** A map that records what was written. */
class MapStore extends HttpCacheStore {
  readonly entries = new Map<string, HttpCacheEntry>();
  get(key: string): Promise<HttpCacheEntry | undefined> {
    return Promise.resolve(this.entries.get(key));
  }
  set(key: string, entry: HttpCacheEntry): Promise<void> {
    this.entries.set(key, entry);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }
  clear(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }
}

const POLICY = { ttlSeconds: 60 };

describe('HttpCacheService', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('answers without the cache, and says so in the log, when the store is down', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const service = new HttpCacheService(new UnreachableStore(), new FixedClock(), new HttpCacheFastLane(new FixedClock(), new Metrics()));
    let executions = 0;
    const run = () => Promise.resolve({ execution: ++executions });

    expect(await service.answer('/x', POLICY, run)).toEqual({ ok: true, body: Buffer.from('{"execution":1}'), maxAgeSeconds: 60 });
    expect(await service.answer('/x', POLICY, run)).toEqual({ ok: true, body: Buffer.from('{"execution":2}'), maxAgeSeconds: 60 });
    expect(warn).toHaveBeenCalledTimes(4);
  });

  it('stores nothing from an execution that a clear() overtook', async () => {
    const store = new MapStore();
    const service = new HttpCacheService(store, new FixedClock(), new HttpCacheFastLane(new FixedClock(), new Metrics()));
    let finish!: (value: unknown) => void;
    const pending = service.answer('/x', POLICY, () => new Promise((resolve) => (finish = resolve)));
    await new Promise((resolve) => setImmediate(resolve));

    await service.clear();
    finish({ stale: true });

    expect(await pending).toEqual({ ok: true, body: Buffer.from('{"stale":true}'), maxAgeSeconds: 60 });
    expect(store.entries.size).toBe(0);
  });

  it('keeps a 2xx answer as UTF-8 bytes, off the JS heap, and answers the miss and the hit with those very bytes', async () => {
    const store = new MapStore();
    const service = new HttpCacheService(store, new FixedClock(), new HttpCacheFastLane(new FixedClock(), new Metrics()));
    const page = [{ corp_name: '삼성전자', summary: '주당 500원의 현금배당을 결정했습니다' }];

    const miss = await service.answer('/p', POLICY, () => Promise.resolve(page));
    const hit = await service.answer('/p', POLICY, () => Promise.reject(new Error('must not run')));

    const [stored] = [...store.entries.values()];
    expect(stored).toMatchObject({ kind: 'success', body: Buffer.from(JSON.stringify(page), 'utf8') });
    expect(miss).toEqual({ ok: true, body: Buffer.from(JSON.stringify(page)), maxAgeSeconds: 60 });
    expect(hit).toEqual(miss);
    // Nothing is encoded again: both send the stored buffer itself.
    expect(miss.ok && miss.body).toBe(stored.kind === 'success' && stored.body);
    expect(hit.ok && hit.body).toBe(stored.kind === 'success' && stored.body);
  });

  it('stores an AppError as plain data that rebuilds the same error', async () => {
    const store = new MapStore();
    const service = new HttpCacheService(store, new FixedClock(), new HttpCacheFastLane(new FixedClock(), new Metrics()));
    const original = new AppError('NOT_FOUND', 'No company 00126380', { corpCode: '00126380' });

    const first = await service.answer('/c', POLICY, () => Promise.reject(original));
    const replay = await service.answer('/c', POLICY, () => Promise.reject(new Error('must not run')));

    expect(first).toEqual({ ok: false, error: original, maxAgeSeconds: 5 });
    expect(JSON.parse(JSON.stringify([...store.entries.values()]))).toEqual([...store.entries.values()]);
    expect(replay.ok).toBe(false);
    const replayed = (replay as { error: unknown }).error;
    expect(replayed).toBeInstanceOf(AppError);
    expect(replayed).toMatchObject({
      code: 'NOT_FOUND',
      message: 'No company 00126380',
      extras: { corpCode: '00126380' },
    });
  });
});

describe('@HttpCache', () => {
  it('refuses a TTL that is not a positive whole number of seconds', () => {
    expect(() => HttpCache({ ttlSeconds: 0 })).toThrow('ttlSeconds must be a positive integer');
    expect(() => HttpCache({ ttlSeconds: 1.5 })).toThrow('ttlSeconds must be a positive integer');
    expect(() => HttpCache({ ttlSeconds: 300 })).not.toThrow();
  });
});
