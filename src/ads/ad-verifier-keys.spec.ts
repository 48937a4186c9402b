import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { FakeClock } from '../../test/support/fake-clock';
import type { ServerResponse } from 'node:http';
import { type HttpDouble, sendJson, startHttpDouble } from '../../test/support/http-double';
import { AppError } from '../common/errors/app-error';
import { AdVerifierKeys, parseKeyDocument, VERIFIER_KEYS_MAX_AGE_MS, VERIFIER_KEYS_MIN_REFETCH_MS } from './ad-verifier-keys';

function p256(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey;
}

function published(keyId: number | string, key: KeyObject) {
  return {
    keyId,
    pem: key.export({ type: 'spki', format: 'pem' }).toString(),
    base64: key.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

describe('parseKeyDocument', () => {
  it('reads keys by id from pem, or from base64 DER when there is no pem', () => {
    const a = p256();
    const b = p256();
    const { pem: _pem, ...onlyBase64 } = published(2, b);
    const keys = parseKeyDocument(JSON.stringify({ keys: [published(3335741209, a), onlyBase64] }));
    expect([...keys.keys()]).toEqual(['3335741209', '2']);
    expect(keys.get('3335741209')!.equals(a)).toBe(true);
    expect(keys.get('2')!.equals(b)).toBe(true);
  });

  it('skips entries that are not P-256 keys or have no usable id, saying why', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey;
    const skipped: string[] = [];
    const keys = parseKeyDocument(
      JSON.stringify({
        keys: [
          published(1, rsa),
          published(2, p384),
          { keyId: 3, pem: 'not a key' },
          { keyId: 4 },
          published('x', p256()),
          published(5, p256()),
        ],
      }),
      (problem) => skipped.push(problem),
    );
    expect([...keys.keys()]).toEqual(['5']);
    expect(skipped).toHaveLength(5);
  });

  it('throws for a document without a keys array', () => {
    expect(() => parseKeyDocument('{"k":[]}')).toThrow('no keys array');
    expect(() => parseKeyDocument('<html>')).toThrow();
  });
});

describe('AdVerifierKeys', () => {
  let server: HttpDouble;
  let document: { status: number; keys: ReturnType<typeof published>[] };
  let clock: FakeClock;
  let keys: AdVerifierKeys;
  const keyA = p256();
  const keyB = p256();

  beforeAll(async () => {
    server = await startHttpDouble((_req, res) => sendJson(res, document.status, { keys: document.keys }));
  });

  afterAll(async () => {
    await server?.close();
  });

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    server.requests.length = 0;
    document = { status: 200, keys: [published(1, keyA)] };
    clock = new FakeClock(new Date('2026-11-18T03:00:00Z'));
    const config = { admob: { verifierKeysUrl: `${server.url}/keys.json` } };
    keys = new AdVerifierKeys(config, clock);
  });

  afterEach(() => jest.restoreAllMocks());

  const unavailable = expect.objectContaining({ code: 'AD_VERIFIER_KEYS_UNAVAILABLE' }) as AppError;

  it('fetches once for many lookups, also concurrent ones', async () => {
    const found = await Promise.all(Array.from({ length: 10 }, () => keys.keyFor('1')));
    expect(found.every((key) => key?.equals(keyA))).toBe(true);
    await keys.keyFor('1');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].path).toBe('/keys.json');
  });

  it('fetches again once the cache is 24 hours old', async () => {
    await keys.keyFor('1');
    clock.advance(VERIFIER_KEYS_MAX_AGE_MS - 1);
    await keys.keyFor('1');
    expect(server.requests).toHaveLength(1);
    clock.advance(1);
    await keys.keyFor('1');
    expect(server.requests).toHaveLength(2);
  });

  it('refetches for an unknown key id, but not more than once a minute', async () => {
    await keys.keyFor('1');
    document.keys = [published(1, keyA), published(2, keyB)];

    // Within the minute a new id stays unknown, however often it is asked for.
    expect(await keys.keyFor('2')).toBeUndefined();
    expect(await keys.keyFor('999')).toBeUndefined();
    expect(server.requests).toHaveLength(1);

    clock.advance(VERIFIER_KEYS_MIN_REFETCH_MS);
    expect((await keys.keyFor('2'))?.equals(keyB)).toBe(true);
    expect(server.requests).toHaveLength(2);

    clock.advance(VERIFIER_KEYS_MIN_REFETCH_MS);
    expect(await keys.keyFor('999')).toBeUndefined();
    expect(await keys.keyFor('998')).toBeUndefined();
    expect(server.requests).toHaveLength(3);
  });

  it('drops keys the server no longer publishes', async () => {
    await keys.keyFor('1');
    document.keys = [published(2, keyB)];
    clock.advance(VERIFIER_KEYS_MAX_AGE_MS);
    expect(await keys.keyFor('1')).toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  it('is unavailable when the first fetch fails, and does not retry within the minute', async () => {
    document.status = 500;
    await expect(keys.keyFor('1')).rejects.toEqual(unavailable);
    await expect(keys.keyFor('1')).rejects.toEqual(unavailable);
    expect(server.requests).toHaveLength(1);

    document.status = 200;
    clock.advance(VERIFIER_KEYS_MIN_REFETCH_MS);
    expect((await keys.keyFor('1'))?.equals(keyA)).toBe(true);
  });

  it('is unavailable when a refetch for an unknown id fails, keeping the cached keys', async () => {
    await keys.keyFor('1');
    document.status = 503;
    clock.advance(VERIFIER_KEYS_MIN_REFETCH_MS);
    await expect(keys.keyFor('2')).rejects.toEqual(unavailable);
    expect((await keys.keyFor('1'))?.equals(keyA)).toBe(true);
  });

  it('serves no key older than 24 hours when the refetch fails', async () => {
    await keys.keyFor('1');
    document.status = 500;
    clock.advance(VERIFIER_KEYS_MAX_AGE_MS);
    await expect(keys.keyFor('1')).rejects.toEqual(unavailable);
  });

  it('treats a document without a usable key as a failed fetch', async () => {
    document.keys = [];
    await expect(keys.keyFor('1')).rejects.toEqual(unavailable);
  });

  describe('a key server that hangs', () => {
    /** A short timeout for the test of it; test/e2e/outbound-timeouts.e2e-spec.ts goes through the callback. */
    class QuickAdVerifierKeys extends AdVerifierKeys {
      protected override readonly fetchTimeoutMs = 200;
    }

    it.each([
      ['accepts the request and never answers', () => undefined],
      [
        'stops in the middle of the body',
        (res: ServerResponse) => void res.writeHead(200, { 'Content-Type': 'application/json' }).write('{"keys": ['),
      ],
    ])('is unavailable when the server %s', async (_case, answer) => {
      const hanging = await startHttpDouble((_req, res) => answer(res));
      try {
        const quick = new QuickAdVerifierKeys({ admob: { verifierKeysUrl: `${hanging.url}/keys.json` } }, clock);
        const started = performance.now();
        await expect(quick.keyFor('1')).rejects.toEqual(unavailable);
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(hanging.requests).toHaveLength(1);
      } finally {
        await hanging.close();
      }
    });
  });
});
