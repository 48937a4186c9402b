import { generateKeyPairSync } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { loadConfig } from '../config/app-config';
import { FirebaseAppCheckVerifier } from './firebase-app-check.verifier';

function serviceAccountJson(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({
    type: 'service_account',
    project_id: 'briefing-test',
    client_email: 'app-check@briefing-test.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
}

describe('FirebaseAppCheckVerifier', () => {
  let warn: jest.SpyInstance;
  let log: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  it('refuses every token without FIREBASE_SERVICE_ACCOUNT and says so once at start', async () => {
    const verifier = new FirebaseAppCheckVerifier(loadConfig({ APP_ENV: 'dev', DEVICE_ATTESTATION: 'enforce' }));
    await verifier.onModuleInit();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe('FIREBASE_SERVICE_ACCOUNT is not set: App Check tokens are refused');
    expect(await verifier.verify('any.app-check.token')).toBeNull();
    expect(await verifier.verify('another')).toBeNull();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('only informs when attestation is off', async () => {
    const verifier = new FirebaseAppCheckVerifier(loadConfig({}));
    await verifier.onModuleInit();
    expect(warn).not.toHaveBeenCalled();
    expect(log.mock.calls[0][0]).toMatch(/^FIREBASE_SERVICE_ACCOUNT is not set: App Check tokens are refused/);
  });

  it('stops the start when FIREBASE_SERVICE_ACCOUNT cannot be read', async () => {
    const verifier = new FirebaseAppCheckVerifier(loadConfig({ FIREBASE_SERVICE_ACCOUNT: '/nonexistent/account.json' }));
    await expect(verifier.onModuleInit()).rejects.toThrow(/^FIREBASE_SERVICE_ACCOUNT must be/);
  });

  it('verifies with firebase-admin when configured: a malformed token is refused', async () => {
    const verifier = new FirebaseAppCheckVerifier(loadConfig({ FIREBASE_SERVICE_ACCOUNT: serviceAccountJson() }));
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
});
