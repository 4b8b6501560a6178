/**
 * is_external_url (pkg/engine/jmespath/functions.go jpIsExternalURL). Kyverno takes the URL's host:
 * an IP literal is external unless Go's `IsLoopback() || IsPrivate()` says otherwise (127/8, 10/8,
 * 172.16/12, 192.168/16, ::1, fc00::/7, and the IPv4 ranges written as IPv4-mapped IPv6); a name is
 * resolved with DNS and is external only if no address is loopback or private.
 *
 * A serverless engine must stay deterministic and may have no resolver, so names are judged by their
 * form: internal when single-label (a Service name), `localhost`, or ending in a cluster/private
 * suffix; any other name counts as external. IP literals get Go's answer exactly, so a link-local or
 * CGNAT address (169.254.169.254, 100.64.0.1) is external, as in Kyverno.
 */
import { strconvQuote } from '../../../go/index.js';
import { FunctionError } from '../errors.js';

const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.svc', '.cluster.local', '.home.arpa'];

/** Go's IsLoopback || IsPrivate for an IPv4 address as a 32-bit number. */
function ipv4Internal(n: number): boolean {
  const a = n >>> 24;
  const b = (n >>> 16) & 0xff;
  return a === 127 || a === 10 || (a === 172 && (b & 0xf0) === 16) || (a === 192 && b === 168);
}

/** The dotted quad WHATWG's URL parser writes (it normalises `127.1`, `0x7f.0.0.1`, …), as a number. */
function parseIpv4(host: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return undefined;
  return ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
}

/** The eight 16-bit groups of a bracketed IPv6 host as WHATWG writes it (lowercase hex, `::` compressed, no dotted tail). */
function parseIpv6(host: string): number[] | undefined {
  if (!host.startsWith('[') || !host.endsWith(']')) return undefined;
  const text = host.slice(1, -1);
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  if (tail === undefined) return left.length === 8 ? left : undefined;
  const right = groups(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** Go's IsLoopback || IsPrivate for an IPv6 address; an IPv4-mapped one (::ffff:a.b.c.d) is judged as IPv4. */
function ipv6Internal(g: number[]): boolean {
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return ipv4Internal(((g[6] << 16) | g[7]) >>> 0);
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true;
  return (g[0] & 0xfe00) === 0xfc00;
}

export function isExternalUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FunctionError('is_external_url', `JMESPath function 'is_external_url': parse ${strconvQuote(raw)}: invalid URL`);
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  // Go resolves the empty host name, which net's resolver refuses before asking anyone.
  if (host === '') throw new FunctionError('is_external_url', 'lookup : no such host');
  const v4 = parseIpv4(host);
  if (v4 !== undefined) return !ipv4Internal(v4);
  const v6 = parseIpv6(host);
  if (v6 !== undefined) return !ipv6Internal(v6);
  if (host === 'localhost' || !host.includes('.')) return false;
  return !INTERNAL_SUFFIXES.some((s) => host.endsWith(s));
}
