import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { App } from 'firebase-admin/app';
import type { AppCheck } from 'firebase-admin/app-check';
import { InjectConfig } from '../config/config.module';
import { type AppCheckVerdict, AppCheckVerifier } from './app-check-verifier';
import type { AttestationConfig } from './attestation.config';
import { initializeFirebaseApp, withDeadline } from './firebase-app';
import type { FirebaseConfig } from './firebase.config';

/** App Check tokens are JWTs of about 1 kB; anything far larger is refused unread. */
const MAX_TOKEN_LENGTH = 8192;

/**
 * How long one verification may take, the key fetch included (firebase-admin waits up to 30 s
 * of silence for the keys). The request waits meanwhile; past it the token is refused, as it
 * is for any other failure of verification.
 */
export const APP_CHECK_TIMEOUT_MS = 5000;

/** firebase-admin reports a failed key fetch with the code of a bad token; its message tells them apart. */
const KEY_FETCH_FAILURE = /Error fetching Json Web Keys/;

let appSequence = 0;

/**
 * The real App Check verifier: firebase-admin `getAppCheck(app).verifyToken(token)`
 * with a Firebase app of its own, initialised from FIREBASE_SERVICE_ACCOUNT. Without
 * that variable every App Check token is refused (said once at start). A variable
 * that cannot be read stops the start. A verification unfinished after
 * APP_CHECK_TIMEOUT_MS refuses the token.
 */
@Injectable()
export class FirebaseAppCheckVerifier extends AppCheckVerifier implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('DeviceAttestation');
  /** A field so tests can shorten it. */
  protected readonly timeoutMs: number = APP_CHECK_TIMEOUT_MS;
  private app?: App;
  private appCheck?: AppCheck;

  constructor(@InjectConfig() private readonly config: AttestationConfig & FirebaseConfig) {
    super();
  }

  async onModuleInit(): Promise<void> {
    if (this.config.firebaseServiceAccount === undefined) {
      const line = 'FIREBASE_SERVICE_ACCOUNT is not set: App Check tokens are refused';
      if (this.config.deviceAttestation === 'enforce') this.logger.warn(line);
      else this.logger.log(`${line} (DEVICE_ATTESTATION=off lets every request through)`);
      return;
    }
    // A named app of its own, so it never collides with the default app another feature may initialise.
    this.app = await initializeFirebaseApp(this.config.firebaseServiceAccount, `app-check-${++appSequence}`, this.timeoutMs);
    const { getAppCheck } = await import('firebase-admin/app-check');
    this.appCheck = getAppCheck(this.app);
    this.logger.log(`App Check tokens are verified for Firebase project ${this.app.options.projectId}`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.app === undefined) return;
    const { deleteApp } = await import('firebase-admin/app');
    await deleteApp(this.app);
    this.app = undefined;
    this.appCheck = undefined;
  }

  async verify(token: string): Promise<AppCheckVerdict | null> {
    if (this.appCheck === undefined || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    try {
      const { appId } = await withDeadline(this.appCheck.verifyToken(token), this.timeoutMs, 'App Check verification');
      return { appId };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // A bad token is the client's problem; anything else (key fetch, network, timeout) is ours to see.
      if (code === 'app-check/invalid-argument' && !KEY_FETCH_FAILURE.test(String(error))) {
        this.logger.debug({ err: error }, 'App Check token refused');
      } else {
        this.logger.warn({ err: error }, 'App Check verification failed');
      }
      return null;
    }
  }
}
