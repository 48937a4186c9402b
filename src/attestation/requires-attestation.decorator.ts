import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { APP_CHECK_HEADER, AttestationGuard, WORKER_SECRET_HEADER } from './attestation.guard';
import { ApiErrors } from '../common/http/api-errors';

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
    ApiErrors({
      ATTESTATION_REQUIRED: 'neither an App Check token nor the web worker secret was sent',
      ATTESTATION_FAILED: 'the App Check token or the worker secret was not accepted',
    }),
  );
}
