import { Logger } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';
import { PROVIDER_TIMEOUT_MS, whyNoAnswer } from './provider-outage';
import { topLevelValueTexts } from './top-level-json';

/** A numeric id in plain digits: non-negative, no sign, fraction or exponent, fits the subject column. */
const INTEGER_ID = /^(0|[1-9][0-9]{0,254})$/;
/** A string id: fits the subject column (varchar(255)) and is safe to compare as it is. */
const STRING_ID = /^[\w.-]{1,255}$/;
/** RFC 6750's b64token: anything else cannot travel in the header (and fetch's error would quote it). */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The account a user-info body names, or why it names none (for the log; never the id itself). */
export type UserInfoAccount = { id: string } | { problem: string };

/**
 * The top-level `id` of a user-info body, exactly as the provider wrote it. Kakao's ids are
 * 64-bit integers: read as a JavaScript number, two neighbouring ids round to one double and
 * would be one user, so ids stay digit strings end to end. A string id is taken as today.
 */
export function accountOf(body: string): UserInfoAccount {
  let ids: string[];
  try {
    ids = topLevelValueTexts(body, 'id');
  } catch {
    return { problem: 'a body that is not a JSON object' };
  }
  // Which of two ids JSON.parse would keep is not something to sign someone in on.
  if (ids.length !== 1) return { problem: ids.length === 0 ? 'no id' : `${ids.length} ids` };
  const [written] = ids;
  if (INTEGER_ID.test(written)) return { id: written };
  if (written.startsWith('"')) {
    const id = JSON.parse(written) as string;
    return STRING_ID.test(id) ? { id } : { problem: 'an id string that is not 1-255 of [A-Za-z0-9_.-]' };
  }
  return { problem: 'an id that is not a non-negative integer or a string' };
}

/**
 * Checks an OAuth access token by calling the provider's user-info endpoint
 * (`GET` with `Authorization: Bearer`). A 2xx JSON object with one `id` names the account.
 * Only the provider's explicit rejection (4xx but 429) is the caller's fault, 401; an
 * outage, throttling, timeout or unusable answer is 503, so the app says "try again".
 */
export class AccessTokenUserInfoVerifier {
  private readonly logger = new Logger(AccessTokenUserInfoVerifier.name);
  /** The provider as the log names it, e.g. `kapi.kakao.com user-info`. */
  private readonly provider: string;

  constructor(private readonly userinfoUrl: string) {
    this.provider = `${new URL(userinfoUrl).host} user-info`;
  }

  async subjectOf(accessToken: string): Promise<string> {
    if (!BEARER_TOKEN.test(accessToken)) {
      throw this.refuse('IDENTITY_REJECTED', 'was not asked: the token has characters RFC 6750 does not allow');
    }
    const { status, body } = await this.ask(accessToken);
    if (status === 429 || status >= 500) throw this.refuse('IDENTITY_UNAVAILABLE', `answered ${status}`);
    if (body === undefined) throw this.refuse('IDENTITY_REJECTED', `answered ${status}`);
    const account = accountOf(body);
    if ('problem' in account) throw this.refuse('IDENTITY_UNAVAILABLE', `answered ${status} with ${account.problem}`);
    return account.id;
  }

  /** The status, with the text of a 2xx body; no answer at all is an outage. */
  private async ask(accessToken: string): Promise<{ status: number; body?: string }> {
    try {
      const response = await fetch(this.userinfoUrl, {
        headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' },
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
        redirect: 'error',
      });
      if (!response.ok) {
        await response.body?.cancel();
        return { status: response.status };
      }
      // Text, not response.json(): that would round a 64-bit id before anyone could see it.
      return { status: response.status, body: await response.text() };
    } catch (error) {
      throw this.refuse('IDENTITY_UNAVAILABLE', whyNoAnswer(error), error);
    }
  }

  /**
   * One warning per refused sign-in, naming the provider and why (never the token), with the
   * error that left the provider unanswered when there is one.
   */
  private refuse(code: 'IDENTITY_REJECTED' | 'IDENTITY_UNAVAILABLE', why: string, error?: unknown): AppError {
    const line = `${this.provider} ${why}: sign-in refused with ${code}`;
    if (error === undefined) this.logger.warn(line);
    else this.logger.warn({ err: error }, line);
    return code === 'IDENTITY_REJECTED'
      ? new AppError(code, 'The identity provider rejected the access token')
      : new AppError(code, 'The identity provider could not be asked; try again later');
  }
}
