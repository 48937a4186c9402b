import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** `sandbox-<name>`: 1–40 characters of a-z, 0-9 and `-`. */
const SANDBOX_TOKEN = /^sandbox-[a-z0-9-]{1,40}$/;
const USERINFO_PATH = '/v2/user/me';

export interface LocalIdentityProvider {
  /** What IDP1_USERINFO_URL points at. */
  userinfoUrl: string;
  close(): Promise<void>;
}

/**
 * The first sign-in provider's user-info endpoint, for trying the service locally: the
 * access token `sandbox-<name>` is the account `sandbox-<name>` (so one stable user per
 * name, across restarts); any other token is refused with 401, as the real provider does.
 */
export async function startLocalIdentityProvider(): Promise<LocalIdentityProvider> {
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: object) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET' || req.url !== USERINFO_PATH) return answer(404, { msg: 'not found' });
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!SANDBOX_TOKEN.test(token)) return answer(401, { msg: 'this access token does not exist', code: -401 });
    answer(200, { id: token, properties: { nickname: token.slice('sandbox-'.length) } });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    userinfoUrl: `http://127.0.0.1:${port}${USERINFO_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
