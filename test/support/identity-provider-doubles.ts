import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { type HttpDouble, sendJson, startHttpDouble } from './http-double';

/** Kakao's own SDK fixtures (test/fixtures/real-identity/SOURCES.md), served byte for byte. */
const REAL_IDENTITY = join(__dirname, '..', 'fixtures', 'real-identity');
const KAKAO_ME_2019 = readFileSync(join(REAL_IDENTITY, 'me.2019.excerpt.json'));
const KAKAO_INTERNAL_ERROR = readFileSync(join(REAL_IDENTITY, 'internal_error.json'));
const KAKAO_TOKEN_DOES_NOT_EXIST = readFileSync(join(REAL_IDENTITY, 'token_does_not_exist.json'));

/** The id of Kakao's 2019 fixture: above 2^53, so a JavaScript number cannot hold it. */
export const KAKAO_64_BIT_ID = '1376016924426814086';
/** Its neighbour, a different account that rounds to the same double. */
export const KAKAO_64_BIT_NEIGHBOUR_ID = '1376016924426814087';
const KAKAO_ME_2019_NEIGHBOUR = Buffer.from(KAKAO_ME_2019.toString('utf8').replace(KAKAO_64_BIT_ID, KAKAO_64_BIT_NEIGHBOUR_ID));

/** Answers `body` as the provider does, without re-serialising it. */
function sendBytes(res: ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, { 'Content-Type': 'application/json;charset=UTF-8', 'Content-Length': body.length }).end(body);
}

/**
 * The first provider's user-info endpoint; the access token says what it answers:
 * - `user-<digits>`: 200, the account `<digits>`;
 * - `kakao-me-2019`: 200, Kakao's 2019 fixture with the 64-bit id `KAKAO_64_BIT_ID`;
 * - `kakao-me-2019-neighbour`: the same body with `KAKAO_64_BIT_NEIGHBOUR_ID`;
 * - `broken-body`: 200 without an id;
 * - `server-error`: 500 with Kakao's (empty) internal-error body;
 * - `rate-limited`: 429;
 * - `no-answer`: accepts the request and never answers;
 * - anything else: 401 with Kakao's `token_does_not_exist` body.
 */
export async function startUserInfoDouble(): Promise<HttpDouble & { userinfoUrl: string }> {
  const double = await startHttpDouble((req, res) => {
    const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
    if (req.method !== 'GET' || req.url !== '/v2/user/me') return sendJson(res, 404, { msg: 'not found' });
    const account = /^user-(\d{1,255})$/.exec(token)?.[1];
    // Written by hand: JSON.stringify of a number would round an id above 2^53.
    if (account !== undefined) return sendBytes(res, 200, Buffer.from(`{"id":${account},"properties":{}}`));
    switch (token) {
      case 'kakao-me-2019':
        return sendBytes(res, 200, KAKAO_ME_2019);
      case 'kakao-me-2019-neighbour':
        return sendBytes(res, 200, KAKAO_ME_2019_NEIGHBOUR);
      case 'broken-body':
        return sendJson(res, 200, { nickname: 'no id here' });
      case 'server-error':
        return sendBytes(res, 500, KAKAO_INTERNAL_ERROR);
      case 'rate-limited':
        return sendJson(res, 429, { msg: 'too many requests' });
      case 'no-answer':
        return; // the socket stays open until the caller gives up or the double closes
      default:
        return sendBytes(res, 401, KAKAO_TOKEN_DOES_NOT_EXIST);
    }
  });
  return { ...double, userinfoUrl: `${double.url}/v2/user/me` };
}

/** What the JWKS endpoint answers: the published key, or an outage of one kind. */
export type KeySetAnswer = 'published' | 500 | 503 | 429 | 'no-answer' | 'not-json' | 'not-a-key-set';

export interface OidcDouble extends HttpDouble {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** What the JWKS endpoint answers from now on (default: the published key). */
  keySet: KeySetAnswer;
  /** Signs an identity token; claims and key can be overridden to forge bad ones. */
  sign(
    claims: { sub?: string; iss?: string; aud?: string; expiresAt?: Date; issuedAt?: Date },
    key?: 'published' | 'foreign',
  ): Promise<string>;
}

/** An OpenID provider: a JWKS endpoint publishing a key the test generated, and a signer. */
export async function startOidcDouble(issuer: string, audience: string): Promise<OidcDouble> {
  const published = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(published.publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  let keySet: KeySetAnswer = 'published';
  const double = await startHttpDouble((req, res) => {
    if (req.url !== '/keys') return sendJson(res, 404, {});
    if (keySet === 'published') return sendJson(res, 200, { keys: [jwk] });
    if (keySet === 'no-answer') return;
    if (keySet === 'not-json') return sendBytes(res, 200, Buffer.from('<html>maintenance</html>'));
    if (keySet === 'not-a-key-set') return sendJson(res, 200, { error: 'maintenance' });
    return sendJson(res, keySet, { error: 'unavailable' });
  });
  return {
    ...double,
    jwksUrl: `${double.url}/keys`,
    issuer,
    audience,
    get keySet() {
      return keySet;
    },
    set keySet(answer: KeySetAnswer) {
      keySet = answer;
    },
    sign: (claims, key = 'published') => {
      const issuedAt = claims.issuedAt ?? new Date();
      const expiresAt = claims.expiresAt ?? new Date(issuedAt.getTime() + 10 * 60_000);
      return new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
        .setSubject(claims.sub ?? 'subject-1')
        .setIssuer(claims.iss ?? issuer)
        .setAudience(claims.aud ?? audience)
        .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(key === 'published' ? published.privateKey : foreign.privateKey);
    },
  };
}
