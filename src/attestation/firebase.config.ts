import type { EnvReader } from '../config/env-reader';

/** The Firebase project's service account: App Check verifies device tokens with it, and push sends through FCM with it. */
export interface FirebaseConfig {
  /** Service-account JSON or a path to it; push is on when it is set (App Check verifies tokens with it too). */
  firebaseServiceAccount?: string;
}

export function firebaseConfig(read: EnvReader): FirebaseConfig {
  return { firebaseServiceAccount: read.optionalString('FIREBASE_SERVICE_ACCOUNT') };
}
