import type { App, Credential, GoogleOAuthAccessToken } from 'firebase-admin/app';
import { JWT } from 'google-auth-library';
import { type FirebaseServiceAccount, readFirebaseServiceAccount } from './firebase-service-account';

/** What sending through FCM needs; firebase-admin's own credential asks for these among others. */
const SCOPES = ['https://www.googleapis.com/auth/cloud-platform', 'https://www.googleapis.com/auth/firebase.messaging'];

/** A Firebase call that did not finish in time. `ETIMEDOUT`, as Node names a network timeout. */
export class FirebaseTimeoutError extends Error {
  override readonly name = 'FirebaseTimeoutError';
  readonly code = 'ETIMEDOUT';
}

/**
 * `work`, or a FirebaseTimeoutError once `ms` have passed. firebase-admin takes neither a
 * deadline nor an abort signal, so the call itself runs on until its own limits end it.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FirebaseTimeoutError(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The service account's OAuth access token, each request to the token endpoint limited to
 * `timeoutMs` (google-auth-library tries three times). firebase-admin's `cert()` credential sets no
 * limit, and ignores the app's httpAgent: an unanswered token request would hang for good, and
 * firebase-admin has every later call wait for the refresh in flight.
 */
export class BoundedServiceAccountCredential implements Credential {
  private readonly client: JWT;

  constructor(account: FirebaseServiceAccount, timeoutMs: number) {
    this.client = new JWT({
      email: account.client_email,
      key: account.private_key,
      scopes: SCOPES,
      // Node's own fetch: gaxios would otherwise import() node-fetch (an ES module).
      transporterOptions: { timeout: timeoutMs, fetchImplementation: fetch },
    });
  }

  async getAccessToken(): Promise<GoogleOAuthAccessToken> {
    const { token } = await this.client.getAccessToken();
    const expiresAt = this.client.credentials.expiry_date;
    if (!token || typeof expiresAt !== 'number') throw new Error('the token endpoint answered no access token');
    return { access_token: token, expires_in: Math.floor((expiresAt - Date.now()) / 1000) };
  }
}

/**
 * A named Firebase app from FIREBASE_SERVICE_ACCOUNT (the JSON or its path; unreadable: throws,
 * naming the variable), with a BoundedServiceAccountCredential.
 */
export async function initializeFirebaseApp(serviceAccount: string, name: string, timeoutMs: number): Promise<App> {
  const account = readFirebaseServiceAccount(serviceAccount);
  // Loaded only when configured: the Admin SDK is large.
  const { initializeApp } = await import('firebase-admin/app');
  return initializeApp({ credential: new BoundedServiceAccountCredential(account, timeoutMs), projectId: account.project_id }, name);
}
