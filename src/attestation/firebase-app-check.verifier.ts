import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { App } from 'firebase-admin/app';
import type { AppCheck } from 'firebase-admin/app-check';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { type AppCheckVerdict, AppCheckVerifier } from './app-check-verifier';
import { readFirebaseServiceAccount } from './firebase-service-account';

/** App Check tokens are JWTs of about 1 kB; anything far larger is refused unread. */
const MAX_TOKEN_LENGTH = 8192;

let appSequence = 0;

/**
 * The real App Check verifier: firebase-admin `getAppCheck(app).verifyToken(token)`
 * with a Firebase app of its own, initialised from FIREBASE_SERVICE_ACCOUNT. Without
 * that variable every App Check token is refused (said once at start). A variable
 * that cannot be read stops the start.
 */
@Injectable()
export class FirebaseAppCheckVerifier extends AppCheckVerifier implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('DeviceAttestation');
  private app?: App;
  private appCheck?: AppCheck;

  constructor(@InjectConfig() private readonly config: AppConfig) {
    super();
  }

  async onModuleInit(): Promise<void> {
    if (this.config.firebaseServiceAccount === undefined) {
      const line = 'FIREBASE_SERVICE_ACCOUNT is not set: App Check tokens are refused';
      if (this.config.deviceAttestation === 'enforce') this.logger.warn(line);
      else this.logger.log(`${line} (DEVICE_ATTESTATION=off lets every request through)`);
      return;
    }
    const account = readFirebaseServiceAccount(this.config.firebaseServiceAccount);
    // Loaded only when configured: the Admin SDK is large.
    const { cert, initializeApp } = await import('firebase-admin/app');
    const { getAppCheck } = await import('firebase-admin/app-check');
    // A named app of its own, so it never collides with the default app another feature may initialise.
    this.app = initializeApp(
      {
        credential: cert({ projectId: account.project_id, clientEmail: account.client_email, privateKey: account.private_key }),
        projectId: account.project_id,
      },
      `app-check-${++appSequence}`,
    );
    this.appCheck = getAppCheck(this.app);
    this.logger.log(`App Check tokens are verified for Firebase project ${account.project_id}`);
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
      const { appId } = await this.appCheck.verifyToken(token);
      return { appId };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // A bad token is the client's problem; anything else (key fetch, network) is ours to see.
      if (code === 'app-check/invalid-argument') this.logger.debug(`App Check token refused: ${String(error)}`);
      else this.logger.warn(`App Check verification failed: ${String(error)}`);
      return null;
    }
  }
}
