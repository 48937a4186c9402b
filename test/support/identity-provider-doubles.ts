import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { type HttpDouble, sendJson, startHttpDouble } from './http-double';

/**
 * The first provider's user-info endpoint: `Bearer user-<id>` is the account `id`;
 * `Bearer broken-body` answers 200 without an id; `Bearer server-error` answers 500;
 * anything else 401.
 */
export async function startUserInfoDouble(): Promise<HttpDouble & { userinfoUrl: string }> {
  const double = await startHttpDouble((req, res) => {
    const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
    if (req.method !== 'GET' || req.url !== '/v2/user/me') return sendJson(res, 404, { msg: 'not found' });
    if (token.startsWith('user-')) return sendJson(res, 200, { id: Number(token.slice(5)), properties: {} });
    if (token === 'broken-body') return sendJson(res, 200, { nickname: 'no id here' });
    if (token === 'server-error') return sendJson(res, 500, { msg: 'internal' });
    return sendJson(res, 401, { msg: 'this access token does not exist', code: -401 });
  });
  return { ...double, userinfoUrl: `${double.url}/v2/user/me` };
}

export interface OidcDouble extends HttpDouble {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** Signs an identity token; claims and key can be overridden to forge bad ones. */
  sign(claims: { sub?: string; iss?: string; aud?: string; expiresAt?: Date; issuedAt?: Date }, key?: 'published' | 'foreign'): Promise<string>;
}

/** An OpenID provider: a JWKS endpoint publishing a key the test generated, and a signer. */
export async function startOidcDouble(issuer: string, audience: string): Promise<OidcDouble> {
  const published = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(published.publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const double = await startHttpDouble((req, res) => {
    if (req.url === '/keys') return sendJson(res, 200, { keys: [jwk] });
    return sendJson(res, 404, {});
  });
  return {
    ...double,
    jwksUrl: `${double.url}/keys`,
    issuer,
    audience,
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
