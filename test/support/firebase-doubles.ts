import { generateKeyPairSync, sign } from 'node:crypto';

/** The Firebase project of the test service accounts. */
export const TEST_FIREBASE_PROJECT = 'briefing-test';

/** A FIREBASE_SERVICE_ACCOUNT value: the service-account JSON of the test project, with a fresh RSA key. */
export function firebaseServiceAccountJson(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({
    type: 'service_account',
    project_id: TEST_FIREBASE_PROJECT,
    client_email: `firebase-adminsdk@${TEST_FIREBASE_PROJECT}.iam.gserviceaccount.com`,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
}

/**
 * An App Check token for the test project with every claim firebase-admin checks before the
 * signature, signed by a key nobody publishes: verifying it fetches App Check's keys.
 */
export function appCheckToken(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = part({ alg: 'RS256', typ: 'JWT', kid: 'test-key' });
  const payload = part({
    iss: 'https://firebaseappcheck.googleapis.com/1234567890',
    aud: ['projects/1234567890', `projects/${TEST_FIREBASE_PROJECT}`],
    sub: '1:1234567890:android:abcdef',
    iat: now,
    exp: now + 3600,
  });
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), privateKey).toString('base64url');
  return `${header}.${payload}.${signature}`;
}
