// An MCP bundle's signature: `mcpb sign` appends `MCPB_SIG_V1 <u32 LE length> <PKCS#7 DER> MCPB_SIG_END` to the
// zip, the PKCS#7 a detached CMS SignedData over the zip's bytes (SHA-256, signed attributes, the signer's
// certificate and any intermediates inside). `mcpb verify` cannot check one itself (node-forge, which it uses,
// has no PKCS#7 verification and throws, so it reports every bundle "unsigned"): pkijs verifies it here.
import { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { errorMessage } from '../internal/error-message.js';

/**
 * How far a valid signature's certificate is vouched for: `trusted` (it leads, through the certificates in the
 * signature, to a root Node trusts, is valid today and may sign code), `self-signed`, `unknown issuer` (no such
 * chain), `expired` or `not for code signing` (a trusted chain, but the certificate fails that check).
 */
export type SignerTrust = 'trusted' | 'self-signed' | 'unknown issuer' | 'expired' | 'not for code signing';

/** What a bundle's signature says once checked. A signature that does not hold is an error, never a status. */
export type BundleSignature =
  | { status: 'unsigned' }
  | {
      status: 'signed';
      /** The signer certificate's subject, `CN=…, O=…`. */
      subject: string;
      /** Its issuer; the subject again when self-signed. */
      issuer: string;
      trust: SignerTrust;
      /** When the certificate stops being valid, as Node prints it (`Dec 28 16:59:57 2026 GMT`). */
      validTo: string;
      /** SHA-256 fingerprint of the signer certificate, `AB:CD:…`. */
      fingerprint: string;
    };

const SIG_HEADER = Buffer.from('MCPB_SIG_V1');
const SIG_FOOTER = Buffer.from('MCPB_SIG_END');

/** A bundle file cut into its zip and, when signed, the PKCS#7 block `mcpb sign` appended. */
export interface SplitBundle {
  zip: Buffer;
  signature?: Buffer;
}

/** Splits off the signature block; a torn block (an end with no start, a length that does not fit) throws `bad`. */
export function splitSignature(bytes: Buffer, bad: (what: string) => Error): SplitBundle {
  if (!bytes.subarray(bytes.length - SIG_FOOTER.length).equals(SIG_FOOTER)) return { zip: bytes };
  const at = bytes.lastIndexOf(SIG_HEADER);
  if (at < 0) throw bad('its signature block has an end but no start');
  const length = bytes.readUInt32LE(at + SIG_HEADER.length);
  const start = at + SIG_HEADER.length + 4;
  if (start + length !== bytes.length - SIG_FOOTER.length || bytes[start] !== 0x30)
    throw bad('its signature block is damaged (its length does not match)');
  return { zip: bytes.subarray(0, at), signature: bytes.subarray(start, start + length) };
}

/**
 * Verifies a bundle's PKCS#7 signature over its zip: the digest it signed is the zip's, and the signer's
 * certificate signed it. Throws `bad` with the reason when it does not hold. `roots` (PEM) are the authorities
 * a `trusted` signer leads to: Node's bundled Mozilla roots unless given. Revocation is not checked.
 */
export async function verifyBundleSignature(
  split: SplitBundle,
  bad: (what: string) => Error,
  roots: readonly string[] = rootCertificates,
): Promise<BundleSignature> {
  if (split.signature === undefined) return { status: 'unsigned' };
  // Loaded only for a signed bundle: 2.4 MB of PKI code nothing else needs.
  const pkijs = await import('pkijs');
  let signed: InstanceType<typeof pkijs.SignedData>;
  try {
    const info = pkijs.ContentInfo.fromBER(arrayBuffer(split.signature));
    if (info.contentType !== pkijs.ContentInfo.SIGNED_DATA) throw new Error('not PKCS#7 signed data');
    signed = new pkijs.SignedData({ schema: info.content });
  } catch (error) {
    throw bad(`its signature block holds no readable PKCS#7 signature (${errorMessage(error)})`);
  }
  let signer: X509Certificate;
  try {
    const result = await signed.verify({
      signer: 0,
      data: arrayBuffer(split.zip),
      checkChain: false,
      extendedMode: true,
    });
    if (!result.signatureVerified || !result.signerCertificate) throw new Error(result.message);
    signer = new X509Certificate(Buffer.from(result.signerCertificate.toSchema().toBER()));
  } catch (error) {
    const reason = errorMessage(error).replace(/^Error during verification: /, '');
    throw bad(
      `its signature does not match its contents (${reason}): the file was changed after it was signed, get it again from its publisher`,
    );
  }
  const others = (signed.certificates ?? []).flatMap((item) =>
    item instanceof pkijs.Certificate ? [new X509Certificate(Buffer.from(item.toSchema().toBER()))] : [],
  );
  return {
    status: 'signed',
    subject: distinguishedName(signer.subject),
    issuer: distinguishedName(signer.issuer),
    trust: trustOf(signer, others, roots),
    validTo: signer.validTo,
    fingerprint: signer.fingerprint256,
  };
}

const CODE_SIGNING = '1.3.6.1.5.5.7.3.3';
const ANY_PURPOSE = '2.5.29.37.0';

function trustOf(signer: X509Certificate, others: X509Certificate[], roots: readonly string[]): SignerTrust {
  if (signer.checkIssued(signer) && signer.verify(signer.publicKey)) return 'self-signed';
  if (!leadsToRoot(signer, others, roots)) return 'unknown issuer';
  if (Date.parse(signer.validTo) < Date.now() || Date.parse(signer.validFrom) > Date.now()) return 'expired';
  // No extended key usage means any; one that lists purposes must list code signing (openssl's -purpose codesigning).
  const purposes = signer.keyUsage;
  if (purposes && !purposes.includes(CODE_SIGNING) && !purposes.includes(ANY_PURPOSE))
    return 'not for code signing';
  return 'trusted';
}

/** Walks issuer links from `leaf` through `others` until a trusted root signed one (at most 8 steps). */
function leadsToRoot(leaf: X509Certificate, others: X509Certificate[], roots: readonly string[]): boolean {
  const trusted = roots.map((pem) => new X509Certificate(pem));
  const issuedBy = (cert: X509Certificate, by: X509Certificate) =>
    cert.checkIssued(by) && cert.verify(by.publicKey);
  let current = leaf;
  for (let step = 0; step < 8; step++) {
    if (trusted.some((root) => issuedBy(current, root))) return true;
    const next = others.find(
      (cert) => cert.fingerprint256 !== current.fingerprint256 && issuedBy(current, cert),
    );
    if (!next) return false;
    current = next;
  }
  return false;
}

/** Node prints a name one attribute a line; one line reads better in a note. */
function distinguishedName(text: string): string {
  return text.split('\n').filter(Boolean).join(', ');
}

function arrayBuffer(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
}
