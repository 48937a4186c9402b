import { Logger } from '@nestjs/common';
import { AppCheck } from 'firebase-admin/app-check';
import { firebaseServiceAccountJson } from '../../test/support/firebase-doubles';
import { EnvReader } from '../config/env-reader';
import type { AppEnv } from '../config/environment';
import { attestationConfig } from './attestation.config';
import { firebaseConfig } from './firebase.config';
import { FirebaseAppCheckVerifier } from './firebase-app-check.verifier';

/** The slices the verifier reads, from these variables. */
function configFor(env: Record<string, string>) {
  const read = new EnvReader(env);
  const appEnv = (env.APP_ENV ?? 'local') as AppEnv;
  const config = { ...attestationConfig(read, { appEnv, production: appEnv === 'production' }), ...firebaseConfig(read) };
  read.assertValid();
  return config;
}

/** A short deadline for the test of it; test/e2e/outbound-timeouts.e2e-spec.ts fetches the keys from a server that hangs. */
class QuickAppCheckVerifier extends FirebaseAppCheckVerifier {
  protected override readonly timeoutMs = 100;
}

describe('FirebaseAppCheckVerifier', () => {
  let warn: jest.SpyInstance;
  let log: jest.SpyInstance;
  let debug: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  it('refuses every token without FIREBASE_SERVICE_ACCOUNT and says so once at start', async () => {
    const verifier = new FirebaseAppCheckVerifier(configFor({ APP_ENV: 'dev', DEVICE_ATTESTATION: 'enforce' }));
    await verifier.onModuleInit();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe('FIREBASE_SERVICE_ACCOUNT is not set: App Check tokens are refused');
    expect(await verifier.verify('any.app-check.token')).toBeNull();
    expect(await verifier.verify('another')).toBeNull();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('only informs when attestation is off', async () => {
    const verifier = new FirebaseAppCheckVerifier(configFor({}));
    await verifier.onModuleInit();
    expect(warn).not.toHaveBeenCalled();
    expect(log.mock.calls[0][0]).toMatch(/^FIREBASE_SERVICE_ACCOUNT is not set: App Check tokens are refused/);
  });

  it('stops the start when FIREBASE_SERVICE_ACCOUNT cannot be read', async () => {
    const verifier = new FirebaseAppCheckVerifier(configFor({ FIREBASE_SERVICE_ACCOUNT: '/nonexistent/account.json' }));
    await expect(verifier.onModuleInit()).rejects.toThrow(/^FIREBASE_SERVICE_ACCOUNT must be/);
  });

  it('verifies with firebase-admin when configured: a malformed token is refused', async () => {
    const verifier = new FirebaseAppCheckVerifier(configFor({ FIREBASE_SERVICE_ACCOUNT: firebaseServiceAccountJson() }));
    await verifier.onModuleInit();
    try {
      expect(log).toHaveBeenCalledWith('App Check tokens are verified for Firebase project briefing-test');
      expect(await verifier.verify('not-a-jwt')).toBeNull();
      expect(await verifier.verify('')).toBeNull();
      expect(await verifier.verify('x'.repeat(10_000))).toBeNull();
    } finally {
      await verifier.onApplicationShutdown();
    }
  });

  describe('when verification fails on our side', () => {
    let verifier: QuickAppCheckVerifier;
    let verifyToken: jest.SpyInstance;

    beforeEach(async () => {
      verifyToken = jest.spyOn(AppCheck.prototype, 'verifyToken');
      verifier = new QuickAppCheckVerifier(configFor({ FIREBASE_SERVICE_ACCOUNT: firebaseServiceAccountJson() }));
      await verifier.onModuleInit();
    });

    afterEach(async () => {
      await verifier.onApplicationShutdown();
    });

    it('refuses the token when verification does not finish in time, and warns', async () => {
      verifyToken.mockReturnValue(new Promise(() => undefined));
      expect(await verifier.verify('a.well-formed.token')).toBeNull();
      expect(warn).toHaveBeenCalledWith(
        { err: expect.objectContaining({ name: 'FirebaseTimeoutError', message: 'App Check verification did not finish within 100 ms' }) },
        'App Check verification failed',
      );
    });

    it('warns when the keys cannot be fetched, which firebase-admin reports with the code of a bad token', async () => {
      verifyToken.mockRejectedValueOnce(
        Object.assign(new Error('Error fetching Json Web Keys: connect ECONNREFUSED'), { code: 'app-check/invalid-argument' }),
      );
      verifyToken.mockRejectedValueOnce(
        Object.assign(new Error('The provided App Check token has invalid signature.'), { code: 'app-check/invalid-argument' }),
      );
      expect(await verifier.verify('a.well-formed.token')).toBeNull();
      expect(await verifier.verify('a.forged.token')).toBeNull();
      expect(warn.mock.calls).toEqual([
        [
          { err: expect.objectContaining({ message: 'Error fetching Json Web Keys: connect ECONNREFUSED' }) },
          'App Check verification failed',
        ],
      ]);
      expect(debug.mock.calls).toEqual([
        [{ err: expect.objectContaining({ message: 'The provided App Check token has invalid signature.' }) }, 'App Check token refused'],
      ]);
    });
  });
});
