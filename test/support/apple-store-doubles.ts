import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { KJUR } from 'jsrsasign';
import { SignJWT, importPKCS8 } from 'jose';

/** Apple's marker extensions: intermediate (WWDR) and leaf (App Store receipt signing). */
const INTERMEDIATE_OID = '1.2.840.113635.100.6.2.1';
const LEAF_OID = '1.2.840.113635.100.6.11.1';

interface Issued {
  pem: string;
  der: Buffer;
  privateKey: KeyObject;
}

function issue(subject: string, issuer: { subject: string; privateKey: KeyObject } | null, extensions: object[]): Issued {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = issuer ?? { subject, privateKey: keys.privateKey };
  const certificate = new KJUR.asn1.x509.Certificate({
    version: 3,
    serial: { int: Math.floor(Math.random() * 1_000_000) + 1 },
    issuer: { str: `/CN=${signer.subject}` },
    subject: { str: `/CN=${subject}` },
    notbefore: '200101000000Z',
    notafter: '491231235959Z',
    sbjpubkey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ext: extensions,
    sigalg: 'SHA256withECDSA',
    cakey: signer.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  } as never);
  const pem = certificate.getPEM();
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  return { pem, der, privateKey: keys.privateKey };
}

/**
 * A generated root CA → intermediate → leaf chain in Apple's shape, ES256, for the real
 * SignedDataVerifier; signs payloads as the App Store does (x5c header, leaf first).
 */
export class AppleSigningChain {
  readonly root: Issued;
  private readonly intermediate: Issued;
  private readonly leaf: Issued;

  /** `ocspUrl`: the revocation responder the intermediate and leaf name, as Apple's certificates do. */
  constructor(options: { ocspUrl?: string } = {}) {
    const ocsp = options.ocspUrl ? [{ extname: 'authorityInfoAccess', array: [{ ocsp: options.ocspUrl }] }] : [];
    this.root = issue('Test Apple Root CA', null, [{ extname: 'basicConstraints', cA: true, critical: true }]);
    this.intermediate = issue('Test Apple WWDR', { subject: 'Test Apple Root CA', privateKey: this.root.privateKey }, [
      { extname: 'basicConstraints', cA: true, critical: true },
      { extname: INTERMEDIATE_OID, extn: '0500' },
      ...ocsp,
    ]);
    this.leaf = issue('Test App Store Signing', { subject: 'Test Apple WWDR', privateKey: this.intermediate.privateKey }, [
      { extname: LEAF_OID, extn: '0500' },
      ...ocsp,
    ]);
  }

  async sign(payload: Record<string, unknown>): Promise<string> {
    const key = await importPKCS8(this.leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'ES256');
    return new SignJWT(payload)
      .setProtectedHeader({
        alg: 'ES256',
        x5c: [this.leaf.der, this.intermediate.der, this.root.der].map((der) => der.toString('base64')),
      })
      .sign(key);
  }
}
