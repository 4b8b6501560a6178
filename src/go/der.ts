/** A small strict DER reader (X.690) and PEM decoder, enough for X.509 certificates and CSRs. */

export class DerError extends Error {}

export interface Tlv {
  /** Tag class: 0 universal, 1 application, 2 context-specific, 3 private. */
  cls: number;
  constructed: boolean;
  tag: number;
  /** Whole element (header + content). */
  full: Uint8Array;
  content: Uint8Array;
}

export function readTlv(buf: Uint8Array, offset: number): [Tlv, number] {
  if (offset >= buf.length) throw new DerError('asn1: syntax error: data truncated');
  const start = offset;
  const b0 = buf[offset++];
  const cls = b0 >> 6;
  const constructed = (b0 & 0x20) !== 0;
  let tag = b0 & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (;;) {
      if (offset >= buf.length) throw new DerError('asn1: syntax error: data truncated');
      const b = buf[offset++];
      tag = tag * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  if (offset >= buf.length) throw new DerError('asn1: syntax error: data truncated');
  let len = buf[offset++];
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new DerError('asn1: syntax error: indefinite or too long length');
    len = 0;
    for (let i = 0; i < n; i++) {
      if (offset >= buf.length) throw new DerError('asn1: syntax error: data truncated');
      len = len * 256 + buf[offset++];
    }
  }
  const end = offset + len;
  if (end > buf.length) throw new DerError('asn1: syntax error: data truncated');
  return [{ cls, constructed, tag, full: buf.subarray(start, end), content: buf.subarray(offset, end) }, end];
}

/** The children of a constructed element. */
export function children(t: Tlv): Tlv[] {
  const out: Tlv[] = [];
  let off = 0;
  while (off < t.content.length) {
    const [child, next] = readTlv(t.content, off);
    out.push(child);
    off = next;
  }
  return out;
}

export function parseOnly(buf: Uint8Array): Tlv {
  const [t, end] = readTlv(buf, 0);
  if (end !== buf.length) throw new DerError('x509: trailing data');
  return t;
}

export function expect(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (!t || t.cls !== 0 || t.tag !== tag) throw new DerError(`x509: malformed ${what}`);
  return t;
}

export function oid(t: Tlv): number[] {
  const b = t.content;
  if (b.length === 0) throw new DerError('asn1: syntax error: zero length OBJECT IDENTIFIER');
  return oidArcs(b, false)!;
}

/**
 * The arcs of an OBJECT IDENTIFIER's content octets (the first octet's two arcs split as X.690 says).
 * `int31`: undefined when an arc does not fit in 31 bits (Go's OID.toASN1OID, asn1.ObjectIdentifier).
 */
export function oidArcs(b: Uint8Array, int31: boolean): number[] | undefined {
  const out: number[] = [];
  let v = 0;
  for (let i = 0; i < b.length; i++) {
    if (int31 && v > (1 << 24) - 1) return undefined;
    v = v * 128 + (b[i] & 0x7f);
    if ((b[i] & 0x80) === 0) {
      if (out.length === 0) {
        if (v < 80) out.push(Math.floor(v / 40), v % 40);
        else out.push(2, v - 80);
      } else out.push(v);
      v = 0;
    }
  }
  return out;
}

export function bigInteger(t: Tlv): bigint {
  const b = t.content;
  if (b.length === 0) throw new DerError('asn1: syntax error: empty integer');
  let v = unsignedBig(b, 0, b.length);
  if (b[0] & 0x80) v -= 1n << BigInt(8 * b.length);
  return v;
}

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const BITS7 = Array.from({ length: 128 }, (_, i) => i.toString(2).padStart(7, '0'));

/**
 * The unsigned big-endian integer of bytes [start, end), or with `bits7` of their low 7 bits each (an OID
 * subidentifier). Read as hex or binary text, which BigInt parses in linear time: a shift per byte
 * copies the growing value each time, and a certificate's 300 KB serial number took 51 s (Go: linear).
 */
export function unsignedBig(b: Uint8Array, start: number, end: number, bits7 = false): bigint {
  if (end - start <= 6) {
    let v = 0;
    for (let i = start; i < end; i++) v = bits7 ? v * 128 + (b[i] & 0x7f) : v * 256 + b[i];
    return BigInt(v);
  }
  const digits = new Array<string>(end - start);
  for (let i = start; i < end; i++) digits[i - start] = bits7 ? BITS7[b[i] & 0x7f] : HEX_BYTES[b[i]];
  return BigInt((bits7 ? '0b' : '0x') + digits.join(''));
}

export function bitStringBytes(t: Tlv): Uint8Array {
  if (t.content.length === 0) throw new DerError('asn1: syntax error: invalid bit string');
  return t.content.subarray(1);
}

export function bitAt(t: Tlv, i: number): boolean {
  const bytes = bitStringBytes(t);
  const byte = Math.floor(i / 8);
  if (byte >= bytes.length) return false;
  return (bytes[byte] & (0x80 >> (i % 8))) !== 0;
}

const utf8 = new TextDecoder('utf-8');

/** Bytes as ISO-8859-1 text (TextDecoder's 'latin1' label is not available on every runtime). */
export function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/** String types an X.509 name or GeneralName may use. */
export function asString(t: Tlv): string | undefined {
  if (t.cls !== 0) return latin1(t.content);
  switch (t.tag) {
    case 12: // UTF8String
      return utf8.decode(t.content);
    case 19: // PrintableString
    case 22: // IA5String
    case 20: // T61String
    case 26: // VisibleString
    case 18: // NumericString
      return latin1(t.content);
    case 30: {
      // BMPString (UCS-2 big endian)
      let s = '';
      for (let i = 0; i + 1 < t.content.length; i += 2) s += String.fromCharCode((t.content[i] << 8) | t.content[i + 1]);
      return s;
    }
    case 28: {
      // UniversalString (UCS-4)
      let s = '';
      for (let i = 0; i + 3 < t.content.length; i += 4) {
        s += String.fromCodePoint(((t.content[i] << 24) | (t.content[i + 1] << 16) | (t.content[i + 2] << 8) | t.content[i + 3]) >>> 0);
      }
      return s;
    }
  }
  return undefined;
}

/** UTCTime or GeneralizedTime as an RFC 3339 string in UTC (Go's JSON form of time.Time). */
export function asTime(t: Tlv): string {
  const s = latin1(t.content);
  let m: RegExpExecArray | null;
  let year: number;
  let rest: string;
  if (t.tag === 23) {
    m = /^(\d{2})(\d{10})Z$/.exec(s);
    if (!m) throw new DerError('x509: malformed UTCTime');
    const yy = Number(m[1]);
    year = yy < 50 ? 2000 + yy : 1900 + yy;
    rest = m[2];
  } else if (t.tag === 24) {
    m = /^(\d{4})(\d{10})(\.\d+)?Z$/.exec(s);
    if (!m) throw new DerError('x509: malformed GeneralizedTime');
    year = Number(m[1]);
    rest = m[2] + (m[3] ? m[3].replace(/0+$/, '').replace(/\.$/, '') : '');
  } else {
    throw new DerError('x509: malformed validity');
  }
  const [mo, d, h, mi, sec] = [0, 2, 4, 6, 8].map((i) => rest.slice(i, i + 2));
  const frac = rest.slice(10);
  return `${String(year).padStart(4, '0')}-${mo}-${d}T${h}:${mi}:${sec}${frac}Z`;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The value of each base64 (StdEncoding) character. */
export const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

export function base64(bytes: Uint8Array): string {
  // btoa (Node, workerd, browsers) over a binary string built in chunks: far faster than
  // per-character concatenation on the megabytes `base64_encode` may be asked for.
  let binary = '';
  for (let i = 0; i < bytes.length; i += BINARY_CHUNK) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + BINARY_CHUNK) as unknown as number[]);
  }
  return btoa(binary);
}

const BINARY_CHUNK = 8192;
