/**
 * x509_decode: a pure DER decoder for PEM certificates and certificate requests that yields what
 * Kyverno returns — Go's x509.Certificate / x509.CertificateRequest encoded with encoding/json (field
 * names as in Go, byte slices as base64, times as RFC 3339, enums as integers), with the RSA public key
 * replaced by {N: decimal string, E}. Like Kyverno, only RSA keys are accepted. No signature is verified
 * (Kyverno does not verify either). Name constraints are not decoded (their fields stay null).
 * The certificate fields are those of the Go Kyverno builds with (go.mod: go 1.26), Policies and the
 * policy constraint fields of Go 1.22-1.24 included.
 */
import type { JsonObject, JsonValue } from '../json/index.js';
import { asString, asTime, base64, bigInteger, bitAt, bitStringBytes, children, DerError, expect, latin1, oid, parseOnly, readTlv, type Tlv } from './der.js';
import { pemDecode } from './pem.js';
import { certificatePolicies, inhibitAnyPolicy, policyConstraints, policyMappings, type PolicyFields } from './x509-policies.js';
import { X509Error } from './x509-error.js';

export { X509Error } from './x509-error.js';

const key = (o: number[]) => o.join('.');
const nullIfEmpty = <T>(a: T[]): T[] | null => (a.length ? a : null);

const SIGNATURE_ALGORITHMS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1, // MD2WithRSA
  '1.2.840.113549.1.1.4': 2, // MD5WithRSA
  '1.2.840.113549.1.1.5': 3, // SHA1WithRSA
  '1.3.14.3.2.29': 3,
  '1.2.840.113549.1.1.11': 4, // SHA256WithRSA
  '1.2.840.113549.1.1.12': 5, // SHA384WithRSA
  '1.2.840.113549.1.1.13': 6, // SHA512WithRSA
  '1.2.840.10040.4.3': 7, // DSAWithSHA1
  '2.16.840.1.101.3.4.3.2': 8, // DSAWithSHA256
  '1.2.840.10045.4.1': 9, // ECDSAWithSHA1
  '1.2.840.10045.4.3.2': 10, // ECDSAWithSHA256
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16, // PureEd25519
};
const PSS_HASHES: Record<string, number> = { '2.16.840.1.101.3.4.2.1': 13, '2.16.840.1.101.3.4.2.2': 14, '2.16.840.1.101.3.4.2.3': 15 };
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
/** x509.RSA: the only public key algorithm Kyverno's x509_decode accepts. */
const RSA = 1;
const EXT_KEY_USAGES: Record<string, number> = {
  '2.5.29.37.0': 0,
  '1.3.6.1.5.5.7.3.1': 1,
  '1.3.6.1.5.5.7.3.2': 2,
  '1.3.6.1.5.5.7.3.3': 3,
  '1.3.6.1.5.5.7.3.4': 4,
  '1.3.6.1.5.5.7.3.5': 5,
  '1.3.6.1.5.5.7.3.6': 6,
  '1.3.6.1.5.5.7.3.7': 7,
  '1.3.6.1.5.5.7.3.8': 8,
  '1.3.6.1.5.5.7.3.9': 9,
  '1.3.6.1.4.1.311.10.3.3': 10,
  '2.16.840.1.113730.4.1': 11,
  '1.3.6.1.4.1.311.2.1.22': 12,
  '1.3.6.1.4.1.311.61.1.1': 13,
};

function signatureAlgorithm(alg: Tlv): number {
  const [id, params] = children(alg);
  const k = key(oid(expect(id, 6, 'algorithm identifier')));
  if (k === '1.2.840.113549.1.1.10') {
    // RSASSA-PSS: the hash in the parameters decides
    const hashAlg = params ? children(params).find((c) => c.cls === 2 && c.tag === 0) : undefined;
    const hashOid = hashAlg ? key(oid(children(children(hashAlg)[0])[0])) : '';
    return PSS_HASHES[hashOid] ?? 0;
  }
  return SIGNATURE_ALGORITHMS[k] ?? 0;
}

/** pkix.Name as Go's FillFromRDNSequence builds it. */
function name(seq: Tlv): JsonObject {
  const out = {
    Country: [] as string[],
    Organization: [] as string[],
    OrganizationalUnit: [] as string[],
    Locality: [] as string[],
    Province: [] as string[],
    StreetAddress: [] as string[],
    PostalCode: [] as string[],
    SerialNumber: '',
    CommonName: '',
    Names: [] as JsonObject[],
  };
  const lists: Record<string, string[]> = {
    '2.5.4.6': out.Country,
    '2.5.4.10': out.Organization,
    '2.5.4.11': out.OrganizationalUnit,
    '2.5.4.7': out.Locality,
    '2.5.4.8': out.Province,
    '2.5.4.9': out.StreetAddress,
    '2.5.4.17': out.PostalCode,
  };
  for (const rdn of children(seq)) {
    for (const atv of children(rdn)) {
      const [t, v] = children(atv);
      const type = oid(expect(t, 6, 'name attribute'));
      const value = v ? asString(v) : undefined;
      out.Names.push({ Type: type, Value: value ?? (v ? base64(v.content) : null) });
      if (value === undefined) continue;
      const k = key(type);
      if (k === '2.5.4.3') out.CommonName = value;
      else if (k === '2.5.4.5') out.SerialNumber = value;
      else lists[k]?.push(value);
    }
  }
  return {
    Country: nullIfEmpty(out.Country),
    Organization: nullIfEmpty(out.Organization),
    OrganizationalUnit: nullIfEmpty(out.OrganizationalUnit),
    Locality: nullIfEmpty(out.Locality),
    Province: nullIfEmpty(out.Province),
    StreetAddress: nullIfEmpty(out.StreetAddress),
    PostalCode: nullIfEmpty(out.PostalCode),
    SerialNumber: out.SerialNumber,
    CommonName: out.CommonName,
    Names: nullIfEmpty(out.Names),
    ExtraNames: null,
  };
}

/** The RSA public key as {N, E}; any other key type is refused, as Kyverno does. */
function rsaPublicKey(spki: Tlv): JsonObject {
  const [alg, bits] = children(spki);
  if (key(oid(children(alg)[0])) !== RSA_ENCRYPTION) throw new X509Error('certificate should use rsa algorithm');
  const rsa = parseOnly(bitStringBytes(expect(bits, 3, 'public key')));
  const [n, e] = children(rsa);
  return { N: bigInteger(expect(n, 2, 'RSA modulus')).toString(), E: Number(bigInteger(expect(e, 2, 'RSA exponent'))) };
}

/** A URI as Go's url.URL encodes to JSON. */
function urlJson(raw: string): JsonObject {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$/.exec(raw);
  return {
    Scheme: m?.[1]?.toLowerCase() ?? '',
    Opaque: m && !m[2] ? m[4] : '',
    User: null,
    Host: m?.[3] ?? '',
    Path: m && m[2] ? m[4] : '',
    RawPath: '',
    OmitHost: false,
    ForceQuery: false,
    RawQuery: m?.[6] ?? '',
    Fragment: m?.[8] ?? '',
    RawFragment: '',
  };
}

function ipString(b: Uint8Array): string {
  if (b.length === 4) return Array.from(b).join('.');
  if (b.length === 16) {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(((b[i] << 8) | b[i + 1]).toString(16));
    // compress the longest run of zeros (Go's net.IP.String)
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && groups[j] === '0') j++;
      if (j - i > bestLen) {
        best = i;
        bestLen = j - i;
      }
      i = j;
    }
    if (best < 0) return groups.join(':');
    return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
  }
  return '?' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

interface SanFields {
  DNSNames: string[];
  EmailAddresses: string[];
  IPAddresses: string[];
  URIs: JsonObject[];
}

function generalNames(seq: Tlv, into: SanFields): void {
  for (const gn of children(seq)) {
    if (gn.cls !== 2) continue;
    if (gn.tag === 1) into.EmailAddresses.push(latin1(gn.content));
    else if (gn.tag === 2) into.DNSNames.push(latin1(gn.content));
    else if (gn.tag === 6) into.URIs.push(urlJson(latin1(gn.content)));
    else if (gn.tag === 7) into.IPAddresses.push(ipString(gn.content));
  }
}

function uriStrings(seq: Tlv): string[] {
  return children(seq)
    .filter((g) => g.cls === 2 && g.tag === 6)
    .map((g) => latin1(g.content));
}

interface ExtensionFields extends SanFields, PolicyFields {
  Extensions: JsonObject[];
  KeyUsage: number;
  ExtKeyUsage: number[];
  UnknownExtKeyUsage: number[][];
  BasicConstraintsValid: boolean;
  IsCA: boolean;
  MaxPathLen: number;
  MaxPathLenZero: boolean;
  SubjectKeyId: string | null;
  AuthorityKeyId: string | null;
  OCSPServer: string[];
  IssuingCertificateURL: string[];
  CRLDistributionPoints: string[];
  UnhandledCriticalExtensions: number[][];
}

/**
 * The fields Go fills from the extensions. `certificate`: processExtensions of a certificate; a request's
 * extensions are read for their SANs only (parseCSRExtensions), so the policy extensions are not parsed.
 */
function extensions(list: Tlv[], certificate: boolean): ExtensionFields {
  const f: ExtensionFields = {
    Extensions: [],
    KeyUsage: 0,
    ExtKeyUsage: [],
    UnknownExtKeyUsage: [],
    BasicConstraintsValid: false,
    IsCA: false,
    MaxPathLen: 0,
    MaxPathLenZero: false,
    SubjectKeyId: null,
    AuthorityKeyId: null,
    OCSPServer: [],
    IssuingCertificateURL: [],
    CRLDistributionPoints: [],
    PolicyIdentifiers: null,
    Policies: null,
    InhibitAnyPolicy: 0,
    InhibitAnyPolicyZero: false,
    InhibitPolicyMapping: 0,
    InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: 0,
    RequireExplicitPolicyZero: false,
    PolicyMappings: null,
    UnhandledCriticalExtensions: [],
    DNSNames: [],
    EmailAddresses: [],
    IPAddresses: [],
    URIs: [],
  };
  for (const ext of list) {
    const parts = children(ext);
    const id = oid(expect(parts[0], 6, 'extension'));
    const critical = parts.length === 3 && parts[1].tag === 1 ? parts[1].content[0] !== 0 : false;
    const value = expect(parts[parts.length - 1], 4, 'extension value').content;
    f.Extensions.push({ Id: id, Critical: critical, Value: base64(value) });
    const k = key(id);
    let handled = true;
    switch (k) {
      case '2.5.29.15': {
        const bs = parseOnly(value);
        let usage = 0;
        for (let i = 0; i < 9; i++) if (bitAt(bs, i)) usage |= 1 << i;
        f.KeyUsage = usage;
        break;
      }
      case '2.5.29.19': {
        const items = children(parseOnly(value));
        let i = 0;
        if (items[i]?.tag === 1) f.IsCA = items[i++].content[0] !== 0;
        f.MaxPathLen = items[i]?.tag === 2 ? Number(bigInteger(items[i])) : -1;
        f.BasicConstraintsValid = true;
        f.MaxPathLenZero = f.MaxPathLen === 0;
        break;
      }
      case '2.5.29.14':
        f.SubjectKeyId = base64(expect(parseOnly(value), 4, 'subject key id').content);
        break;
      case '2.5.29.35': {
        const kid = children(parseOnly(value)).find((c) => c.cls === 2 && c.tag === 0);
        if (kid) f.AuthorityKeyId = base64(kid.content);
        break;
      }
      case '2.5.29.17': {
        const before = f.DNSNames.length + f.EmailAddresses.length + f.IPAddresses.length + f.URIs.length;
        generalNames(parseOnly(value), f);
        // Go: a SAN extension of which no name was parsed (only directory names, say) is still checked as
        // unhandled when critical.
        if (f.DNSNames.length + f.EmailAddresses.length + f.IPAddresses.length + f.URIs.length === before) handled = false;
        break;
      }
      case '2.5.29.37':
        for (const u of children(parseOnly(value))) {
          const o = oid(u);
          const known = EXT_KEY_USAGES[key(o)];
          if (known === undefined) f.UnknownExtKeyUsage.push(o);
          else f.ExtKeyUsage.push(known);
        }
        break;
      case '1.3.6.1.5.5.7.1.1':
        for (const ad of children(parseOnly(value))) {
          const [method, location] = children(ad);
          if (!location || location.cls !== 2 || location.tag !== 6) continue;
          const uri = latin1(location.content);
          const m = key(oid(method));
          if (m === '1.3.6.1.5.5.7.48.1') f.OCSPServer.push(uri);
          else if (m === '1.3.6.1.5.5.7.48.2') f.IssuingCertificateURL.push(uri);
        }
        break;
      case '2.5.29.31':
        for (const dp of children(parseOnly(value))) {
          const dpName = children(dp).find((c) => c.cls === 2 && c.tag === 0);
          const full = dpName ? children(dpName).find((c) => c.cls === 2 && c.tag === 0) : undefined;
          if (full) f.CRLDistributionPoints.push(...uriStrings(full));
        }
        break;
      case '2.5.29.32':
        if (certificate) certificatePolicies(value, f);
        break;
      case '2.5.29.33':
        if (certificate) policyMappings(value, f);
        break;
      case '2.5.29.36':
        if (certificate) policyConstraints(value, f);
        break;
      case '2.5.29.54':
        if (certificate) inhibitAnyPolicy(value, f);
        break;
      case '2.5.29.30': // name constraints: understood by Go, not decoded here
        break;
      default:
        handled = false;
    }
    if (critical && !handled) f.UnhandledCriticalExtensions.push(id);
  }
  return f;
}

/**
 * The certificate's outermost element. ParseCertificate reads it with cryptobyte
 * (`input.ReadASN1Element(&input, SEQUENCE)`), which fails on any bad tag or length without saying more:
 * 'x509: malformed certificate'. Data after it: 'x509: trailing data'.
 */
function certificateElement(der: Uint8Array): Tlv {
  let element: Tlv;
  let end: number;
  try {
    [element, end] = readTlv(der, 0);
  } catch (e) {
    if (e instanceof DerError) throw new X509Error('x509: malformed certificate');
    throw e;
  }
  if (end !== der.length) throw new X509Error('x509: trailing data');
  return element;
}

/**
 * The request's outermost element. ParseCertificateRequest reads it with encoding/asn1's Unmarshal,
 * whose errors (`asn1: syntax error: data truncated`) are the reader's; data after it is
 * `asn1.SyntaxError{Msg: "trailing data"}`.
 */
function requestElement(der: Uint8Array): Tlv {
  const [element, end] = readTlv(der, 0);
  if (end !== der.length) throw new X509Error('asn1: syntax error: trailing data');
  return element;
}

function decodeCertificate(der: Uint8Array): JsonObject {
  const cert = certificateElement(der);
  const [tbs, sigAlg, sig] = children(expect(cert, 16, 'certificate'));
  const t = children(expect(tbs, 16, 'tbs certificate'));
  let i = 0;
  let version = 0;
  if (t[i]?.cls === 2 && t[i].tag === 0) version = Number(bigInteger(children(t[i++])[0]));
  const serial = bigInteger(expect(t[i++], 2, 'serial number'));
  i++; // inner signature algorithm
  const issuer = t[i++];
  const validity = children(expect(t[i++], 16, 'validity'));
  const subject = t[i++];
  const spki = expect(t[i++], 16, 'public key info');
  let exts: Tlv[] = [];
  for (; i < t.length; i++) if (t[i].cls === 2 && t[i].tag === 3) exts = children(children(t[i])[0]);
  const publicKey = rsaPublicKey(spki);
  const e = extensions(exts, true);
  return {
    Raw: base64(cert.full),
    RawTBSCertificate: base64(tbs.full),
    RawSubjectPublicKeyInfo: base64(spki.full),
    RawSubject: base64(subject.full),
    RawIssuer: base64(issuer.full),
    Signature: base64(bitStringBytes(expect(sig, 3, 'signature'))),
    SignatureAlgorithm: signatureAlgorithm(sigAlg),
    PublicKeyAlgorithm: RSA,
    PublicKey: publicKey,
    Version: version + 1,
    SerialNumber: Number(serial),
    Issuer: name(issuer),
    Subject: name(subject),
    NotBefore: asTime(validity[0]),
    NotAfter: asTime(validity[1]),
    KeyUsage: e.KeyUsage,
    Extensions: nullIfEmpty(e.Extensions),
    ExtraExtensions: null,
    UnhandledCriticalExtensions: nullIfEmpty(e.UnhandledCriticalExtensions),
    ExtKeyUsage: nullIfEmpty(e.ExtKeyUsage),
    UnknownExtKeyUsage: nullIfEmpty(e.UnknownExtKeyUsage),
    BasicConstraintsValid: e.BasicConstraintsValid,
    IsCA: e.IsCA,
    MaxPathLen: e.MaxPathLen,
    MaxPathLenZero: e.MaxPathLenZero,
    SubjectKeyId: e.SubjectKeyId,
    AuthorityKeyId: e.AuthorityKeyId,
    OCSPServer: nullIfEmpty(e.OCSPServer),
    IssuingCertificateURL: nullIfEmpty(e.IssuingCertificateURL),
    DNSNames: nullIfEmpty(e.DNSNames),
    EmailAddresses: nullIfEmpty(e.EmailAddresses),
    IPAddresses: nullIfEmpty(e.IPAddresses),
    URIs: nullIfEmpty(e.URIs),
    PermittedDNSDomainsCritical: false,
    PermittedDNSDomains: null,
    ExcludedDNSDomains: null,
    PermittedIPRanges: null,
    ExcludedIPRanges: null,
    PermittedEmailAddresses: null,
    ExcludedEmailAddresses: null,
    PermittedURIDomains: null,
    ExcludedURIDomains: null,
    CRLDistributionPoints: nullIfEmpty(e.CRLDistributionPoints),
    PolicyIdentifiers: e.PolicyIdentifiers,
    Policies: e.Policies,
    InhibitAnyPolicy: e.InhibitAnyPolicy,
    InhibitAnyPolicyZero: e.InhibitAnyPolicyZero,
    InhibitPolicyMapping: e.InhibitPolicyMapping,
    InhibitPolicyMappingZero: e.InhibitPolicyMappingZero,
    RequireExplicitPolicy: e.RequireExplicitPolicy,
    RequireExplicitPolicyZero: e.RequireExplicitPolicyZero,
    PolicyMappings: e.PolicyMappings,
  };
}

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

function decodeRequest(der: Uint8Array): JsonObject {
  const csr = requestElement(der);
  const [info, sigAlg, sig] = children(expect(csr, 16, 'certificate request'));
  const [version, subject, spki, attrs] = children(expect(info, 16, 'certificate request info'));
  const publicKey = rsaPublicKey(expect(spki, 16, 'public key info'));
  const attributes: JsonObject[] = [];
  let exts: Tlv[] = [];
  for (const attr of attrs && attrs.cls === 2 ? children(attrs) : []) {
    const [type, values] = children(attr);
    const typeOid = oid(type);
    const valueSets: JsonValue[] = [];
    for (const v of children(values)) {
      if (key(typeOid) === EXTENSION_REQUEST) exts = children(v);
      if (v.tag !== 16) continue;
      valueSets.push(
        children(v).map((atv) => {
          const [t, val] = children(atv);
          return { Type: oid(t), Value: val ? (val.tag === 1 ? val.content[0] !== 0 : (asString(val) ?? base64(val.content))) : null };
        }),
      );
    }
    if (valueSets.length) attributes.push({ Type: typeOid, Value: valueSets });
  }
  const e = extensions(exts, false);
  return {
    Raw: base64(csr.full),
    RawTBSCertificateRequest: base64(info.full),
    RawSubjectPublicKeyInfo: base64(spki.full),
    RawSubject: base64(subject.full),
    Version: Number(bigInteger(version)),
    Signature: base64(bitStringBytes(expect(sig, 3, 'signature'))),
    SignatureAlgorithm: signatureAlgorithm(sigAlg),
    PublicKeyAlgorithm: RSA,
    PublicKey: publicKey,
    Subject: name(subject),
    Attributes: nullIfEmpty(attributes),
    Extensions: nullIfEmpty(e.Extensions),
    ExtraExtensions: null,
    DNSNames: nullIfEmpty(e.DNSNames),
    EmailAddresses: nullIfEmpty(e.EmailAddresses),
    IPAddresses: nullIfEmpty(e.IPAddresses),
    URIs: nullIfEmpty(e.URIs),
  };
}

export function x509Decode(pem: string): JsonObject {
  const block = pemDecode(pem);
  if (!block) throw new X509Error('failed to decode PEM block');
  try {
    if (block.type === 'CERTIFICATE') return decodeCertificate(block.bytes);
    if (block.type === 'CERTIFICATE REQUEST') return decodeRequest(block.bytes);
  } catch (e) {
    if (e instanceof X509Error) throw e;
    if (e instanceof DerError) throw new X509Error(e.message);
    throw new X509Error(`x509: malformed ${block.type === 'CERTIFICATE' ? 'certificate' : 'certificate request'}`);
  }
  throw new X509Error('PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST');
}
