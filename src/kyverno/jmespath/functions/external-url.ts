/**
 * is_external_url (pkg/engine/jmespath/functions.go jpIsExternalURL). Kyverno parses the URL with Go's
 * url.Parse (its error is the function's, as is: `parse "…": missing ']' in host`) and takes its
 * Hostname(): an IP literal is external unless Go's `IsLoopback() || IsPrivate()` says otherwise (127/8,
 * 10/8, 172.16/12, 192.168/16, ::1, fc00::/7, and the IPv4 ranges written as IPv4-mapped IPv6); anything
 * else goes to net.DefaultResolver.LookupIPAddr, which also reads an address with a zone, refuses the
 * empty name and a name that is no domain name (all digits and dots, say: `127.1`) with `lookup <name>:
 * no such host`, and otherwise asks DNS: external only if no address is loopback or private.
 *
 * A serverless engine must stay deterministic and may have no resolver, so names are judged by their
 * form: internal when single-label (a Service name), `localhost`, or ending in a cluster/private
 * suffix; any other name counts as external. URLs and IP literals are read by the ports of Go's net/url
 * and net/netip (src/cel/lib), so a link-local or CGNAT address (169.254.169.254, 100.64.0.1) is
 * external, and `0x7f.0.0.1` is a name, as in Kyverno.
 */
import { NetipError, parseNetipAddr, parseURL, UrlError, urlHostname } from '../../../cel/index.js';
import { FunctionError } from '../errors.js';

const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.svc', '.cluster.local', '.home.arpa'];

/** Go's IsLoopback || IsPrivate for an IPv4 address. */
function ipv4Internal(b: Uint8Array, at: number): boolean {
  const a = b[at];
  return a === 127 || a === 10 || (a === 172 && (b[at + 1] & 0xf0) === 16) || (a === 192 && b[at + 1] === 168);
}

/** Go's IsLoopback || IsPrivate for 4 or 16 bytes; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as IPv4. */
function internalAddress(b: Uint8Array): boolean {
  if (b.length === 4) return ipv4Internal(b, 0);
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return ipv4Internal(b, 12);
  if (b.subarray(0, 15).every((x) => x === 0) && b[15] === 1) return true;
  return (b[0] & 0xfe) === 0xfc;
}

/** The address LookupIPAddr reads before asking anyone (netip.ParseAddr, a zone allowed), or undefined. */
function literalAddress(host: string): Uint8Array | undefined {
  try {
    return parseNetipAddr(host).bytes;
  } catch (e) {
    if (e instanceof NetipError) return undefined;
    throw e;
  }
}

/** Go's isDomainName (net/dnsclient.go): what the resolver accepts as a name to ask DNS for. */
function isDomainName(s: string): boolean {
  if (s === '.') return true;
  const l = s.length;
  if (l === 0 || l > 254 || (l === 254 && s[l - 1] !== '.')) return false;
  let last = '.';
  let nonNumeric = false;
  let partlen = 0;
  for (const c of s) {
    if (/[A-Za-z_]/.test(c)) {
      nonNumeric = true;
      partlen++;
    } else if (/[0-9]/.test(c)) partlen++;
    else if (c === '-') {
      if (last === '.') return false;
      partlen++;
      nonNumeric = true;
    } else if (c === '.') {
      if (last === '.' || last === '-' || partlen > 63 || partlen === 0) return false;
      partlen = 0;
    } else return false;
    last = c;
  }
  return last !== '-' && partlen <= 63 && nonNumeric;
}

const noSuchHost = (name: string) => new FunctionError('is_external_url', `lookup ${name}: no such host`);

export function isExternalUrl(raw: string): boolean {
  let host: string;
  try {
    host = urlHostname(parseURL(raw));
  } catch (e) {
    if (e instanceof UrlError) throw new FunctionError('is_external_url', e.message);
    throw e;
  }
  const address = literalAddress(host);
  if (address !== undefined) return !internalAddress(address);
  // The resolver: the empty name and what is no domain name fail before any lookup.
  if (host === '' || !isDomainName(host)) throw noSuchHost(host);
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || !name.includes('.')) return false;
  return !INTERNAL_SUFFIXES.some((s) => name.endsWith(s));
}
