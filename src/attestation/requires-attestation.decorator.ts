import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiForbiddenResponse, ApiHeader } from '@nestjs/swagger';
import { ErrorBody } from '../common/errors/error-body';
import { APP_CHECK_HEADER, AttestationGuard, WORKER_SECRET_HEADER } from './attestation.guard';

/**
 * The route needs device attestation: sets the guard and the OpenAPI header docs
 * together. With `@Authenticated()` on the same route, put `@RequiresAttestation()`
 * above it: decorators apply bottom-up, so the JWT check then runs first and a
 * request without a token answers 401 before attestation is looked at.
 * Never on admin routes.
 */
export function RequiresAttestation(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(AttestationGuard),
    ApiHeader({
      name: APP_CHECK_HEADER,
      required: false,
      description: 'Firebase App Check token of the mobile app (device attestation)',
    }),
    ApiHeader({
      name: WORKER_SECRET_HEADER,
      required: false,
      description: 'Shared secret of the web server worker, accepted instead of an App Check token',
    }),
    ApiForbiddenResponse({
      type: ErrorBody,
      description: 'Device attestation missing (ATTESTATION_REQUIRED) or not accepted (ATTESTATION_FAILED)',
    }),
  );
}
