/** A verified App Check token: the Firebase app it was issued to. */
export interface AppCheckVerdict {
  appId: string;
}

/**
 * Verifies Firebase App Check tokens (`X-Firebase-AppCheck`). An abstract class so
 * it serves as the injection token: the server binds FirebaseAppCheckVerifier,
 * tests bind a double (`overrideProvider(AppCheckVerifier)`), since App Check has
 * no emulator.
 */
export abstract class AppCheckVerifier {
  /** The verdict for a valid token of one of our apps, null for anything else. Never throws. */
  abstract verify(token: string): Promise<AppCheckVerdict | null>;
}
