/**
 * The certificate policy extensions crypto/x509 reads into a Certificate (Go 1.22–1.24 fields included, as
 * Kyverno builds with go 1.26): certificate policies (2.5.29.32), policy mappings (2.5.29.33), policy
 * constraints (2.5.29.36) and inhibit anyPolicy (2.5.29.54), with Go's error messages.
 */
import type { JsonObject } from '../json/index.js';
import { bigInteger, latin1, oidArcs, readTlv, unsignedBig, type Tlv } from './der.js';
import { X509Error } from './x509-error.js';

/** The Certificate fields they fill. */
export interface PolicyFields {
  /** null without the certificate policies extension, a list (maybe empty) with it. */
  PolicyIdentifiers: number[][] | null;
  Policies: string[] | null;
  InhibitAnyPolicy: number;
  InhibitAnyPolicyZero: boolean;
  InhibitPolicyMapping: number;
  InhibitPolicyMappingZero: boolean;
  RequireExplicitPolicy: number;
  RequireExplicitPolicyZero: boolean;
  PolicyMappings: JsonObject[] | null;
}

/** OID.String() of crypto/x509's OID: arcs of any size (big integers), the first two from the first subidentifier. */
function oidText(der: Uint8Array): string {
  const arcs: string[] = [];
  let start = 0;
  for (let i = 0; i < der.length; i++) {
    if ((der[i] & 0x80) !== 0) continue;
    // A subidentifier of any length read at once (der.ts unsignedBig), not by a shift per byte.
    const v = unsignedBig(der, start, i + 1, true);
    start = i + 1;
    if (arcs.length === 0) {
      if (v < 80n) arcs.push(String(v / 40n), String(v % 40n));
      else arcs.push('2', String(v - 80n));
    } else arcs.push(String(v));
  }
  return arcs.join('.');
}

/** newOIDFromDER: not empty, the last byte ends a subidentifier, no subidentifier starts with 0x80. */
function validOid(der: Uint8Array): boolean {
  if (der.length === 0 || (der[der.length - 1] & 0x80) !== 0) return false;
  let start = true;
  for (const b of der) {
    if (start && b === 0x80) return false;
    start = (b & 0x80) === 0;
  }
  return true;
}

/** The next element of `buf` from `offset` when its identifier octet is `identifier` (cryptobyte's ReadASN1). */
function readTagged(buf: Uint8Array, offset: number, identifier: number, message: string): [Tlv, number] {
  if (offset >= buf.length || buf[offset] !== identifier) throw new X509Error(message);
  try {
    return readTlv(buf, offset);
  } catch {
    throw new X509Error(message);
  }
}

/**
 * cryptobyte's ReadASN1Integer into an int (64 bits) / ReadASN1Int64WithTag: minimally encoded, at most 8
 * bytes, signed. As a JSON number: Kyverno decodes the encoded certificate into float64s.
 */
function int64Content(t: Tlv, message: string): number {
  const b = t.content;
  const padded = b.length > 1 && ((b[0] === 0 && (b[1] & 0x80) === 0) || (b[0] === 0xff && (b[1] & 0x80) !== 0));
  if (b.length === 0 || b.length > 8 || padded) throw new X509Error(message);
  return Number(bigInteger(t));
}

const SEQUENCE = 0x30;
const OBJECT_IDENTIFIER = 0x06;
const INTEGER = 0x02;

/** Certificate policies (2.5.29.32): every policy OID (Policies); those with 31-bit arcs (PolicyIdentifiers). */
export function certificatePolicies(value: Uint8Array, f: PolicyFields): void {
  const message = 'x509: invalid certificate policies';
  const [seq] = readTagged(value, 0, SEQUENCE, message);
  const policies: string[] = [];
  const identifiers: number[][] = [];
  const seen = new Set<string>();
  for (let off = 0; off < seq.content.length; ) {
    const [info, next] = readTagged(seq.content, off, SEQUENCE, message);
    off = next;
    const [id] = readTagged(info.content, 0, OBJECT_IDENTIFIER, message);
    const raw = latin1(id.content);
    if (seen.has(raw) || !validOid(id.content)) throw new X509Error(message);
    seen.add(raw);
    policies.push(oidText(id.content));
    // OID.toASN1OID: only an OID whose arcs each fit in 31 bits has one.
    const arcs = oidArcs(id.content, true);
    if (arcs) identifiers.push(arcs);
  }
  // Go: Policies stays nil for an empty sequence; PolicyIdentifiers is made (empty, not nil) whenever
  // the extension is there.
  f.Policies = policies.length ? policies : null;
  f.PolicyIdentifiers = identifiers;
}

/** Policy mappings (2.5.29.33): pairs of OIDs, written as OID text. */
export function policyMappings(value: Uint8Array, f: PolicyFields): void {
  const message = 'x509: invalid policy mappings extension';
  const [seq] = readTagged(value, 0, SEQUENCE, message);
  const mappings: JsonObject[] = [];
  for (let off = 0; off < seq.content.length; ) {
    const [pair, next] = readTagged(seq.content, off, SEQUENCE, message);
    off = next;
    const [issuer, afterIssuer] = readTagged(pair.content, 0, OBJECT_IDENTIFIER, message);
    const [subject] = readTagged(pair.content, afterIssuer, OBJECT_IDENTIFIER, message);
    mappings.push({ IssuerDomainPolicy: oidText(issuer.content), SubjectDomainPolicy: oidText(subject.content) });
  }
  f.PolicyMappings = mappings.length ? mappings : null;
}

/** Policy constraints (2.5.29.36): requireExplicitPolicy [0] then inhibitPolicyMapping [1], each optional. */
export function policyConstraints(value: Uint8Array, f: PolicyFields): void {
  const message = 'x509: invalid policy constraints extension';
  const [seq] = readTagged(value, 0, SEQUENCE, message);
  const c = seq.content;
  let off = 0;
  if (c[off] === 0x80) {
    const [t, next] = readTagged(c, off, 0x80, message);
    off = next;
    f.RequireExplicitPolicy = int64Content(t, message);
    f.RequireExplicitPolicyZero = f.RequireExplicitPolicy === 0;
  }
  if (off < c.length && c[off] === 0x81) {
    const [t] = readTagged(c, off, 0x81, message);
    f.InhibitPolicyMapping = int64Content(t, message);
    f.InhibitPolicyMappingZero = f.InhibitPolicyMapping === 0;
  }
}

/** Inhibit anyPolicy (2.5.29.54): an INTEGER. */
export function inhibitAnyPolicy(value: Uint8Array, f: PolicyFields): void {
  const message = 'x509: invalid inhibit any policy extension';
  const [t] = readTagged(value, 0, INTEGER, message);
  f.InhibitAnyPolicy = int64Content(t, message);
  f.InhibitAnyPolicyZero = f.InhibitAnyPolicy === 0;
}
