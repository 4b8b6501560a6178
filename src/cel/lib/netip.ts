/**
 * IP addresses and prefixes with Go's net/netip semantics: parsing (no leading zeros in IPv4
 * octets, zones and IPv4-mapped IPv6 recognised so callers can reject them), the canonical text
 * form (RFC 5952), classification and prefix containment. Error texts are Go's.
 */

import { strconvQuote } from '../../go/index.js';

export class NetipError extends Error {}

/** An address: 4 or 16 bytes, plus the zone Go keeps for IPv6 (`fe80::1%eth0`). */
export class Addr {
  constructor(
    readonly bytes: Uint8Array,
    readonly zone = '',
  ) {}

  is4(): boolean {
    return this.bytes.length === 4;
  }

  is6(): boolean {
    return this.bytes.length === 16;
  }

  bitLen(): number {
    return this.bytes.length * 8;
  }

  /** ::ffff:a.b.c.d */
  is4In6(): boolean {
    if (!this.is6()) return false;
    for (let i = 0; i < 10; i++) if (this.bytes[i] !== 0) return false;
    return this.bytes[10] === 0xff && this.bytes[11] === 0xff;
  }

  private u16(i: number): number {
    return (this.bytes[2 * i] << 8) | this.bytes[2 * i + 1];
  }

  equals(o: Addr): boolean {
    if (this.bytes.length !== o.bytes.length || this.zone !== o.zone) return false;
    return this.bytes.every((b, i) => b === o.bytes[i]);
  }

  isUnspecified(): boolean {
    return this.bytes.every((b) => b === 0) && this.zone === '';
  }

  isLoopback(): boolean {
    if (this.is4()) return this.bytes[0] === 127;
    return this.bytes.slice(0, 15).every((b) => b === 0) && this.bytes[15] === 1;
  }

  isMulticast(): boolean {
    return this.is4() ? (this.bytes[0] & 0xf0) === 0xe0 : this.bytes[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    if (this.is4()) return this.bytes[0] === 224 && this.bytes[1] === 0 && this.bytes[2] === 0;
    return (this.u16(0) & 0xff0f) === 0xff02;
  }

  isLinkLocalUnicast(): boolean {
    if (this.is4()) return this.bytes[0] === 169 && this.bytes[1] === 254;
    return (this.u16(0) & 0xffc0) === 0xfe80;
  }

  isGlobalUnicast(): boolean {
    if (this.is4()) {
      const b = this.bytes;
      if (b.every((x) => x === 0) || b.every((x) => x === 255)) return false;
    } else if (this.bytes.every((x) => x === 0)) return false;
    return !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }

  /** Go's Addr.String(). */
  toString(): string {
    const zone = this.zone ? `%${this.zone}` : '';
    if (this.is4()) return this.bytes.join('.');
    if (this.is4In6()) return `::ffff:${[...this.bytes.slice(12)].join('.')}${zone}`;
    // The longest run (of at least two) of zero groups becomes '::'; the first one on a tie.
    let zeroStart = -1;
    let zeroEnd = -1;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && this.u16(j) === 0) j++;
      if (j - i >= 2 && j - i > zeroEnd - zeroStart) [zeroStart, zeroEnd] = [i, j];
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === zeroStart) {
        out += '::';
        i = zeroEnd - 1;
        continue;
      }
      if (i > 0 && !out.endsWith(':')) out += ':';
      out += this.u16(i).toString(16);
    }
    return out + zone;
  }

  /** The address with all bits after the first `bits` cleared. */
  masked(bits: number): Addr {
    const out = new Uint8Array(this.bytes.length);
    for (let i = 0; i < out.length; i++) {
      const keep = Math.max(0, Math.min(8, bits - 8 * i));
      out[i] = this.bytes[i] & ((0xff << (8 - keep)) & 0xff);
    }
    return new Addr(out);
  }
}

const quote = strconvQuote;

function addrError(input: string, msg: string, at?: string): NetipError {
  return new NetipError(`ParseAddr(${quote(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${quote(at)})` : ''}`);
}

/** Go's netip.ParseAddr. */
export function parseAddr(s: string): Addr {
  for (const c of s) {
    if (c === '.') return new Addr(parseIPv4Fields(s, 0, s.length));
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

function parseIPv4Fields(input: string, off: number, end: number): Uint8Array {
  const fields = new Uint8Array(4);
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digLen === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digLen++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') {
        throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      }
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      fields[pos++] = val;
      val = 0;
      digLen = 0;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  fields[3] = val;
  return fields;
}

function hexValue(c: string): number {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return new Addr(ip, zone);
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s[off]);
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) {
        throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      }
      if (i + 4 > 16) {
        throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      }
      const end = input.length - (zone ? zone.length + 1 : 0);
      ip.set(parseIPv4Fields(input, end - s.length, end), i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw addrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return new Addr(ip, zone);
}

/** An address and a prefix length; the address keeps its host bits (Go's netip.Prefix). */
export class Prefix {
  constructor(
    readonly addr: Addr,
    readonly bits: number,
  ) {}

  equals(o: Prefix): boolean {
    return this.bits === o.bits && this.addr.equals(o.addr);
  }

  masked(): Prefix {
    return new Prefix(this.addr.masked(this.bits), this.bits);
  }

  contains(ip: Addr): boolean {
    if (ip.zone !== '' || ip.bitLen() !== this.addr.bitLen()) return false;
    return ip.masked(this.bits).equals(this.addr.masked(this.bits));
  }

  toString(): string {
    return `${this.addr}/${this.bits}`;
  }
}

function prefixError(input: string, msg: string): NetipError {
  return new NetipError(`netip.ParsePrefix(${quote(input)}): ${msg}`);
}

/** strconv.Atoi for the prefix length: optional sign, then decimal digits only. */
function parseBits(bits: string): number | undefined {
  let i = bits[0] === '+' || bits[0] === '-' ? 1 : 0;
  if (i >= bits.length) return undefined;
  let n = 0;
  for (; i < bits.length; i++) {
    const d = bits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return bits[0] === '-' ? -n : n;
}

/** Go's netip.ParsePrefix. */
export function parsePrefix(s: string): Prefix {
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw prefixError(s, "no '/'");
  let ip: Addr;
  try {
    ip = parseAddr(s.slice(0, slash));
  } catch (e) {
    if (e instanceof NetipError) throw prefixError(s, e.message);
    throw e;
  }
  if (ip.is6() && ip.zone !== '') throw prefixError(s, 'IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(slash + 1);
  // Atoi would accept a sign and leading zeros; Go rejects both first.
  const bits = bitsStr.length > 1 && (bitsStr[0] < '1' || bitsStr[0] > '9') ? undefined : parseBits(bitsStr);
  if (bits === undefined) throw prefixError(s, `bad bits after slash: ${quote(bitsStr)}`);
  if (bits < 0 || bits > ip.bitLen()) throw prefixError(s, 'prefix length out of range');
  return new Prefix(ip, bits);
}
