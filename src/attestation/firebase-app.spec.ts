import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KJUR } from 'jsrsasign';
import { firebaseServiceAccountJson } from '../../test/support/firebase-doubles';
import { redirectTlsTo, startSilentServer } from '../../test/support/silent-server';
import { BoundedServiceAccountCredential, FirebaseTimeoutError, withDeadline } from './firebase-app';
import { readFirebaseServiceAccount } from './firebase-service-account';

describe('withDeadline', () => {
  it('answers what the work answers in time', async () => {
    await expect(withDeadline(Promise.resolve('sent'), 1000, 'the call')).resolves.toBe('sent');
    await expect(withDeadline(Promise.reject(new Error('refused')), 1000, 'the call')).rejects.toThrow('refused');
  });

  it('fails with ETIMEDOUT, naming the call, when the work does not finish in time', async () => {
    const failure = withDeadline(new Promise(() => undefined), 50, 'the call');
    await expect(failure).rejects.toBeInstanceOf(FirebaseTimeoutError);
    await expect(failure).rejects.toMatchObject({ code: 'ETIMEDOUT', message: 'the call did not finish within 50 ms' });
  });
});

/** A TLS certificate of its own for a loopback server standing in for a Google host. */
function selfSignedCertificate(): { key: string; cert: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const certificate = new KJUR.asn1.x509.Certificate({
    version: 3,
    serial: { int: 1 },
    issuer: { str: '/CN=oauth2.googleapis.com' },
    subject: { str: '/CN=oauth2.googleapis.com' },
    notbefore: '200101000000Z',
    notafter: '491231235959Z',
    sbjpubkey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sigalg: 'SHA256withECDSA',
    cakey: key,
  } as never);
  return { key, cert: certificate.getPEM() };
}

describe('BoundedServiceAccountCredential', () => {
  const serviceAccount = readFirebaseServiceAccount(firebaseServiceAccountJson());

  afterEach(() => jest.restoreAllMocks());

  it('fetches the access token with a grant the service account signed, and says how long it lasts', async () => {
    const grants: URLSearchParams[] = [];
    const tokenEndpoint: Server = createServer(selfSignedCertificate(), (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        grants.push(new URLSearchParams(body));
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'ya29.test-token', expires_in: 3599, token_type: 'Bearer' }));
      });
    });
    await new Promise<void>((resolve) => tokenEndpoint.listen(0, '127.0.0.1', resolve));
    redirectTlsTo((tokenEndpoint.address() as AddressInfo).port, { rejectUnauthorized: false });
    try {
      const token = await new BoundedServiceAccountCredential(serviceAccount, 1000).getAccessToken();

      expect(token.access_token).toBe('ya29.test-token');
      expect(token.expires_in).toBeGreaterThan(3500);
      expect(token.expires_in).toBeLessThanOrEqual(3599);
      const [grant] = grants;
      expect(grant.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
      const [header, payload, signature] = grant.get('assertion')!.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { iss: string; scope: string; aud: string };
      expect(claims).toMatchObject({ iss: serviceAccount.client_email, aud: 'https://oauth2.googleapis.com/token' });
      expect(claims.scope.split(' ')).toContain('https://www.googleapis.com/auth/firebase.messaging');
      const publicKey = createPublicKey(serviceAccount.private_key);
      expect(verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
    } finally {
      tokenEndpoint.closeAllConnections();
      await new Promise((resolve) => tokenEndpoint.close(resolve));
    }
  });

  it('gives up on a token endpoint that accepts the connection and never answers', async () => {
    const silent = await startSilentServer();
    redirectTlsTo(silent.port);
    try {
      const started = performance.now();
      await expect(new BoundedServiceAccountCredential(serviceAccount, 200).getAccessToken()).rejects.toMatchObject({
        code: 'TimeoutError',
      });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(silent.accepted()).toBeGreaterThan(0);
    } finally {
      // Closed before the redirect is undone, so no try reaches the real host.
      await silent.close();
    }
  });
});
