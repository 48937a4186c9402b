import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../common/errors/app-error';
import { secretsEqual } from '../common/secrets-equal';
import { InjectConfig } from '../config/config.module';
import { AppCheckVerifier } from './app-check-verifier';
import type { AttestationConfig } from './attestation.config';

export const APP_CHECK_HEADER = 'X-Firebase-AppCheck';
export const WORKER_SECRET_HEADER = 'X-Worker-Secret';

/**
 * Device attestation. Passes when DEVICE_ATTESTATION=off; otherwise when
 * `X-Worker-Secret` equals WEB_SECRET (compared by `secretsEqual`, revealing
 * neither content nor length; WEB_SECRET unset: that path is refused) or when
 * `X-Firebase-AppCheck` holds a token the AppCheckVerifier accepts. Either
 * credential suffices. Everything else is 403: ATTESTATION_REQUIRED when neither
 * header is sent, ATTESTATION_FAILED when what was sent is not accepted.
 */
@Injectable()
export class AttestationGuard implements CanActivate {
  constructor(
    @InjectConfig() private readonly config: AttestationConfig,
    private readonly appCheck: AppCheckVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.config.deviceAttestation === 'off') return true;
    const headers = context.switchToHttp().getRequest<Request>().headers;
    const secret = headerValue(headers[WORKER_SECRET_HEADER.toLowerCase()]);
    const token = headerValue(headers[APP_CHECK_HEADER.toLowerCase()]);

    const webSecret = this.config.webSecret;
    if (secret !== undefined && webSecret !== undefined && secretsEqual(secret, webSecret)) {
      return true;
    }
    if (token !== undefined && (await this.appCheck.verify(token)) !== null) return true;

    if (secret === undefined && token === undefined) {
      throw new AppError(
        'ATTESTATION_REQUIRED',
        `Device attestation required: send ${APP_CHECK_HEADER} (mobile app) or ${WORKER_SECRET_HEADER} (web server)`,
      );
    }
    throw new AppError('ATTESTATION_FAILED', 'Device attestation failed');
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const single = Array.isArray(value) ? value[0] : value;
  return single === undefined || single === '' ? undefined : single;
}
