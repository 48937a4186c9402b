import { generateKeyPairSync } from 'node:crypto';
import { GoogleAuth } from 'google-auth-library';
import { EnvReader } from '../../config/env-reader';
import { subscriptionsConfig } from '../subscriptions.config';
import { createPlayAuth, GooglePlayClient } from './google-play.client';

/** The subscriptions slice for these variables, as the application reads it. */
function configFor(env: Record<string, string>) {
  return { subscriptions: subscriptionsConfig(new EnvReader(env)) };
}

describe('createPlayAuth and GooglePlayClient', () => {
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const account = JSON.stringify({ project_id: 'p', client_email: 'play@p.iam.gserviceaccount.com', private_key: privateKey });

  it('is off without a service account, and the client is then unconfigured', () => {
    const config = configFor({ GOOGLE_PLAY_PACKAGE_NAME: 'com.example.app' });
    expect(createPlayAuth(config)).toBeNull();
    expect(new GooglePlayClient(config, null).configured).toBe(false);
  });

  it('builds an auth client from the service-account JSON', () => {
    const config = configFor({ GOOGLE_PLAY_PACKAGE_NAME: 'com.example.app', GOOGLE_PLAY_SERVICE_ACCOUNT: account });
    const auth = createPlayAuth(config);
    expect(auth).toBeInstanceOf(GoogleAuth);
    expect(new GooglePlayClient(config, auth).configured).toBe(true);
  });

  it('needs the package name as well', () => {
    const config = configFor({ GOOGLE_PLAY_SERVICE_ACCOUNT: account });
    expect(new GooglePlayClient(config, createPlayAuth(config)).configured).toBe(false);
  });

  it('names GOOGLE_PLAY_SERVICE_ACCOUNT, not the key, when the value is bad', () => {
    const config = configFor({ GOOGLE_PLAY_SERVICE_ACCOUNT: '{"client_email": "x"}' });
    expect(() => createPlayAuth(config)).toThrow(
      /^GOOGLE_PLAY_SERVICE_ACCOUNT must be a service-account JSON \(missing project_id, private_key\)$/,
    );
    const missing = configFor({ GOOGLE_PLAY_SERVICE_ACCOUNT: '/nonexistent/play.json' });
    expect(() => createPlayAuth(missing)).toThrow(/^GOOGLE_PLAY_SERVICE_ACCOUNT must be .*ENOENT/);
  });
});
