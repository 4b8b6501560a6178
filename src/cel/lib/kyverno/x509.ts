import { bigInteger, children, parseOnly, X509Error, x509Decode } from '../../../go/index.js';
import type { JsonObject } from '../../../json/index.js';
import { checkBuiltSize } from '../../engine/bounds.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { traversal } from '../cost.js';
import { celError } from '../errors.js';
import { documentToCel } from './documents.js';

/**
 * Kyverno's x509 library (kyverno/sdk `extensions/cel/libs/x509`): `x509.decode(pem) -> dyn`, a PEM
 * certificate or certificate request with an RSA key, decoded into Go's JSON of it (numbers are doubles,
 * byte fields base64). A certificate gives Kyverno's projection (CertificateOutput: no Subject, Version,
 * SignatureAlgorithm, SubjectKeyId…; times in RFC 3339); a request the whole x509.CertificateRequest.
 * The DER decoding is the one Kyverno's JMESPath `x509_decode` uses (src/go/x509.ts).
 */

/** CertificateOutput's fields, in its order (Go's encoder writes struct fields in declaration order). */
const CERTIFICATE_FIELDS = [
  'Raw', 'RawTBSCertificate', 'RawSubjectPublicKeyInfo', 'RawSubject', 'RawIssuer', 'Signature', 'PublicKeyAlgorithm',
  'PublicKey', 'SerialNumber', 'Issuer', 'NotBefore', 'NotAfter', 'KeyUsage', 'Extensions', 'ExtraExtensions', 'ExtKeyUsage',
  'BasicConstraintsValid', 'IsCA', 'MaxPathLen', 'MaxPathLenZero', 'AuthorityKeyId', 'OCSPServer', 'IssuingCertificateURL',
  'DNSNames', 'EmailAddresses', 'IPAddresses', 'PermittedDNSDomainsCritical', 'PermittedDNSDomains', 'ExcludedDNSDomains',
  'PermittedIPRanges', 'ExcludedIPRanges', 'PermittedEmailAddresses', 'ExcludedEmailAddresses', 'PermittedURIDomains',
  'ExcludedURIDomains', 'CRLDistributionPoints', 'PolicyIdentifiers',
];

/** Kyverno writes `cert.SerialNumber.Int64()`: the serial's low 64 bits as a signed number. */
function serialInt64(decoded: JsonObject): number {
  const raw = decoded.Raw;
  if (typeof raw !== 'string') return Number(decoded.SerialNumber);
  const bytes = Uint8Array.from(atob(raw), (c) => c.charCodeAt(0));
  const tbs = children(children(parseOnly(bytes))[0]);
  const first = tbs[0];
  const serial = bigInteger(first.cls === 2 && first.tag === 0 ? tbs[1] : first);
  return Number(BigInt.asIntN(64, serial));
}

function decode(pem: string): unknown {
  checkBuiltSize(pem.length, 'the argument of x509.decode');
  let decoded: JsonObject;
  try {
    decoded = x509Decode(pem);
  } catch (e) {
    if (e instanceof X509Error) throw celError(e.message);
    throw e;
  }
  // A certificate has a validity period; a request does not.
  if (!('NotBefore' in decoded)) return documentToCel(decoded);
  const projected: JsonObject = {};
  for (const f of CERTIFICATE_FIELDS) if (f in decoded) projected[f] = decoded[f];
  projected.SerialNumber = serialInt64(decoded);
  return documentToCel(projected);
}

export const x509Library: CelLibrary = {
  name: 'kyverno.x509',
  register(r: LibraryRegistrar) {
    r.registerFunction('x509.decode(string): dyn', decode);
  },
  callCost(fn, args) {
    return fn === 'x509.decode' ? 1 + traversal(args[0]) : undefined;
  },
};
