import type { ConfigEnvironment } from '../config/environment';
import type { EnvReader } from '../config/env-reader';

export interface AttestationConfig {
  /** The workers' shared secret (`X-Worker-Secret`), accepted in place of a device attestation. */
  webSecret?: string;
  deviceAttestation: 'enforce' | 'off';
}

export function attestationConfig(read: EnvReader, { production }: ConfigEnvironment): AttestationConfig {
  const webSecret = read.optionalString('WEB_SECRET');
  // A shared secret that guards worker access must not be guessable.
  if (production && webSecret !== undefined && webSecret.length < 32) read.fail('WEB_SECRET', 'at least 32 characters long in production');
  return {
    webSecret,
    deviceAttestation: read.oneOf('DEVICE_ATTESTATION', ['enforce', 'off'] as const, production ? 'enforce' : 'off'),
  };
}
