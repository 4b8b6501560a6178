import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { actualSize, STRING_TRAVERSAL_COST_FACTOR, traversal } from './cost.js';
import { CelEvalError, celError, noSuchOverload, parses } from './errors.js';
import { strconvQuote } from '../../go/index.js';
import { Addr, NetipError, parseAddr, parsePrefix, Prefix } from './netip.js';

/**
 * Kubernetes' IP and CIDR libraries (`k8s.io/apiserver/pkg/cel/library/ip.go`, `cidr.go`): types
 * `net.IP` and `net.CIDR` (also usable as type values: `type(ip(s)) == net.IP`).
 *
 *   ip(string) -> net.IP, isIP(string), ip.isCanonical(string), string(net.IP)
 *   <net.IP>.family(), .isUnspecified(), .isLoopback(), .isLinkLocalMulticast(),
 *     .isLinkLocalUnicast(), .isGlobalUnicast()
 *   cidr(string) -> net.CIDR, isCIDR(string), string(net.CIDR)
 *   <net.CIDR>.containsIP(net.IP|string), .containsCIDR(net.CIDR|string), .ip(), .masked(),
 *     .prefixLength()
 *
 * IPv4-mapped IPv6 addresses and zones are rejected; a CIDR keeps its host bits
 * (`cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()`).
 */

export const IP_TYPE = 'net.IP';
export const CIDR_TYPE = 'net.CIDR';

export class IPValue {
  readonly celTypeName = IP_TYPE;
  constructor(readonly addr: Addr) {}
  /** Undefined (no such overload) for another type, as Kubernetes' IP.Equal. */
  celEquals(other: unknown): boolean | undefined {
    return other instanceof IPValue ? this.addr.equals(other.addr) : undefined;
  }
  /**
   * Kubernetes' IP.Size (a traits.Sizer, so cel-go's actualSize): the address in bytes, 4 or 16
   * (apiserver pkg/cel/ip.go). It prices `!=` (cel-go's traversal of the smaller operand).
   */
  celSize(): number {
    return Math.ceil(this.addr.bitLen() / 8);
  }
  toString(): string {
    return this.addr.toString();
  }
}

export class CIDRValue {
  readonly celTypeName = CIDR_TYPE;
  constructor(readonly prefix: Prefix) {}
  /** Undefined (no such overload) for another type, as Kubernetes' CIDR.Equal. */
  celEquals(other: unknown): boolean | undefined {
    return other instanceof CIDRValue ? this.prefix.equals(other.prefix) : undefined;
  }
  /**
   * Kubernetes' CIDR.Size (a traits.Sizer, so the cost model's actualSize): the prefix length in bytes,
   * rounded up (apiserver pkg/cel/cidr.go).
   */
  celSize(): number {
    return Math.ceil(this.prefix.bits / 8);
  }
  toString(): string {
    return this.prefix.toString();
  }
}

/** Kubernetes' parseIPAddr: netip.ParseAddr without zones or IPv4-mapped IPv6. */
export function parseIP(raw: string): IPValue {
  let addr: Addr;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    if (e instanceof NetipError) {
      throw celError(`IP Address ${strconvQuote(raw)} parse error during conversion from string: ${e.message}`);
    }
    throw e;
  }
  if (addr.zone !== '') throw celError(`IP address ${strconvQuote(raw)} with zone value is not allowed`);
  if (addr.is4In6()) throw celError(`IPv4-mapped IPv6 address ${strconvQuote(raw)} is not allowed`);
  return new IPValue(addr);
}

const CIDR_PARSE = 'network address parse error during conversion from string: ';

/** Kubernetes' stringToCIDR (its message repeats the prefix: parseCIDR adds it, then the caller). */
export function parseCIDR(raw: string): CIDRValue {
  let prefix: Prefix;
  try {
    prefix = parsePrefix(raw);
  } catch (e) {
    if (e instanceof NetipError) throw celError(CIDR_PARSE + CIDR_PARSE + e.message);
    throw e;
  }
  if (prefix.addr.is4In6()) throw celError(`${CIDR_PARSE}IPv4-mapped IPv6 address ${strconvQuote(raw)} is not allowed`);
  return new CIDRValue(prefix);
}

function containsCIDR(c: CIDRValue, other: CIDRValue): boolean {
  const bits = c.prefix.bits;
  const otherAtBits = new Prefix(other.prefix.addr, bits).masked();
  return c.prefix.masked().equals(otherAtBits) && bits <= other.prefix.bits;
}

export const netLibrary: CelLibrary = {
  name: 'kubernetes.net',
  register(r: LibraryRegistrar) {
    const IP = IP_TYPE;
    const CIDR = CIDR_TYPE;
    r.registerType(IP, IPValue);
    r.registerType(CIDR, CIDRValue);

    r.registerFunction(`ip(string): ${IP}`, parseIP);
    r.registerFunction('isIP(string): bool', (s: string) => parses(() => parseIP(s), CelEvalError));
    r.registerFunction(`string(${IP}): string`, (v: IPValue) => v.addr.toString());
    r.registerFunction(`${IP}.family(): int`, (v: IPValue) => (v.addr.is4() ? 4n : 6n));
    r.registerFunction(`${IP}.isUnspecified(): bool`, (v: IPValue) => v.addr.isUnspecified());
    r.registerFunction(`${IP}.isLoopback(): bool`, (v: IPValue) => v.addr.isLoopback());
    r.registerFunction(`${IP}.isLinkLocalMulticast(): bool`, (v: IPValue) => v.addr.isLinkLocalMulticast());
    r.registerFunction(`${IP}.isLinkLocalUnicast(): bool`, (v: IPValue) => v.addr.isLinkLocalUnicast());
    r.registerFunction(`${IP}.isGlobalUnicast(): bool`, (v: IPValue) => v.addr.isGlobalUnicast());

    r.registerFunction(`cidr(string): ${CIDR}`, parseCIDR);
    r.registerFunction('isCIDR(string): bool', (s: string) => parses(() => parseCIDR(s), CelEvalError));
    r.registerFunction(`string(${CIDR}): string`, (v: CIDRValue) => v.prefix.toString());
    r.registerFunction(`${CIDR}.containsIP(${IP}): bool`, (c: CIDRValue, ip: IPValue) => c.prefix.contains(ip.addr));
    r.registerFunction(`${CIDR}.containsIP(string): bool`, (c: CIDRValue, s: string) => {
      // Kubernetes reports an unparsable IP here as "no such overload", not as the parse error.
      let ip: IPValue;
      try {
        ip = parseIP(s);
      } catch {
        throw noSuchOverload();
      }
      return c.prefix.contains(ip.addr);
    });
    r.registerFunction(`${CIDR}.containsCIDR(${CIDR}): bool`, containsCIDR);
    r.registerFunction(`${CIDR}.containsCIDR(string): bool`, (c: CIDRValue, s: string) => containsCIDR(c, parseCIDR(s)));
    r.registerFunction(`${CIDR}.ip(): ${IP}`, (c: CIDRValue) => new IPValue(c.prefix.addr));
    r.registerFunction(`${CIDR}.masked(): ${CIDR}`, (c: CIDRValue) => new CIDRValue(c.prefix.masked()));
    r.registerFunction(`${CIDR}.prefixLength(): int`, (c: CIDRValue) => BigInt(c.prefix.bits));

    r.registerFunction('ip.isCanonical(string): bool', (s: string) => parseIP(s).addr.toString() === s);
  },
  callCost(name, args) {
    switch (name) {
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
        return args.length >= 1 ? traversal(args[0]) : undefined;
      case 'ip':
        // cidr.ip() reads a field; ip(string) parses.
        return args[0] instanceof CIDRValue ? 1 : args.length >= 1 ? traversal(args[0]) : undefined;
      case 'ip.isCanonical':
        return traversal(args[0], 2);
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'isGlobalUnicast':
      case 'masked':
      case 'prefixLength':
        return 1;
      case 'containsIP':
      case 'containsCIDR': {
        if (args.length < 2) return undefined;
        const cidrSize = actualSize(args[0]);
        let cost = Math.ceil(2 * cidrSize * STRING_TRAVERSAL_COST_FACTOR);
        if (name.endsWith('CIDR')) cost += Math.ceil(cidrSize * STRING_TRAVERSAL_COST_FACTOR) + 1;
        if (typeof args[1] === 'string') cost += traversal(args[1]);
        return cost;
      }
    }
    return undefined;
  },
};
