// Certificates made at test (or benchmark) start: a private CA and leaf certificates it signs, ECDSA P-256,
// built with @peculiar/x509 over node:crypto's WebCrypto (no openssl binary needed). Dev-only: the product
// never makes certificates.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

export interface TestCa {
  /** The CA certificate (PEM): what an operator passes as the balancer's CA bundle. */
  cert: string;
  name: string;
  keys: CryptoKeyPair;
}

export interface LeafCert {
  cert: string;
  key: string;
  notAfter: Date;
}

let serial = 1;
function nextSerial(): string {
  serial += 1;
  return serial.toString(16).padStart(2, '0');
}

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

function pemOf(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
}

/** A self-signed CA, valid from an hour ago for a year. */
export async function makeCa(name = 'Erawatch Test CA'): Promise<TestCa> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: nextSerial(),
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - 3_600_000),
    notAfter: new Date(Date.now() + 365 * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { cert: cert.toString('pem'), name, keys };
}

/**
 * A server certificate signed by `ca` for `names` (DNS names, or IP addresses), valid from `notBefore`
 * (default an hour ago) to `notAfter` (default 30 days on).
 */
export async function issueCert(
  ca: TestCa,
  names: string[],
  validity: { notBefore?: Date; notAfter?: Date } = {},
): Promise<LeafCert> {
  const keys = await keyPair();
  const notAfter = validity.notAfter ?? new Date(Date.now() + 30 * DAY);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: nextSerial(),
    subject: `CN=${names[0] ?? 'localhost'}`,
    issuer: `CN=${ca.name}`,
    notBefore: validity.notBefore ?? new Date(Date.now() - 3_600_000),
    notAfter,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        names.map((n) => ({ type: /^[\d.]+$|:/.test(n) ? ('ip' as const) : ('dns' as const), value: n })),
      ),
    ],
  });
  const key = pemOf(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { cert: cert.toString('pem'), key, notAfter };
}
