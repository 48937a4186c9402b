import { Global, Module } from '@nestjs/common';
import { AppCheckVerifier } from './app-check-verifier';
import { AttestationGuard } from './attestation.guard';
import { FirebaseAppCheckVerifier } from './firebase-app-check.verifier';

/**
 * Device attestation. Global, so any feature can put `@RequiresAttestation()` on a
 * route without importing this module (the guard's dependencies resolve everywhere).
 */
@Global()
@Module({
  providers: [{ provide: AppCheckVerifier, useClass: FirebaseAppCheckVerifier }, AttestationGuard],
  exports: [AppCheckVerifier, AttestationGuard],
})
export class AttestationModule {}
