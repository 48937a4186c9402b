import type { IncomingHttpHeaders } from 'node:http';

/**
 * `Authorization: Bearer <token>` and nothing else: one RFC 6750 token (a JWT
 * fits), no trailing words. The scheme name is case-insensitive.
 */
const BEARER_AUTHORIZATION = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The one reading of the `Authorization` header, shared by authentication and the
 * rate limiter so that both always agree on who is calling.
 */
export function bearerTokenOf(authorization: string | undefined): string | null {
  return BEARER_AUTHORIZATION.exec(authorization?.trim() ?? '')?.[1] ?? null;
}

/** No credentials sent: no `Authorization` header, or an empty one. Anything else must authenticate. */
export function sendsNoCredentials(headers: IncomingHttpHeaders): boolean {
  return (headers.authorization ?? '').trim() === '';
}
