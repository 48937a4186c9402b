import { Logger } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';

const TIMEOUT_MS = 5000;

/**
 * Checks an OAuth access token by calling the provider's user-info endpoint
 * (`GET` with `Authorization: Bearer`). A 2xx JSON body with an `id` names the
 * account; anything else is a rejection (401), as the runtime contract says.
 */
export class AccessTokenUserInfoVerifier {
  private readonly logger = new Logger(AccessTokenUserInfoVerifier.name);

  constructor(private readonly userinfoUrl: string) {}

  async subjectOf(accessToken: string): Promise<string> {
    let response: Response;
    try {
      response = await fetch(this.userinfoUrl, {
        headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' },
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      });
    } catch (error) {
      this.logger.warn(`user-info endpoint unreachable: ${String(error)}`);
      throw this.rejected();
    }
    if (!response.ok) {
      if (response.status >= 500) this.logger.warn(`user-info endpoint answered ${response.status}`);
      await response.body?.cancel();
      throw this.rejected();
    }
    const body = (await response.json().catch(() => null)) as { id?: unknown } | null;
    const id = body?.id;
    if ((typeof id === 'number' && Number.isSafeInteger(id)) || (typeof id === 'string' && /^[\w.-]{1,255}$/.test(id))) {
      return String(id);
    }
    throw this.rejected();
  }

  private rejected(): AppError {
    return new AppError('IDENTITY_REJECTED', 'The identity provider rejected the access token');
  }
}
