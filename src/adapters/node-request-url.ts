/**
 * The absolute URL of a request the Node server received, from its scheme, Host (HTTP/1.1) or :authority
 * (HTTP/2) and request target; a request these cannot make a URL of is a BadRequestError (answered 400).
 * Refused: an absolute target over HTTP/2, a target that is neither a path nor an absolute URL (`*`,
 * `example.com:443`), a backslash in the path, a host the URL parser reads as another (`a b`, `u@h`).
 * The common case (a plain host and path) is a string, not a parsed URL. Messages never repeat the target
 * or the Host: a cluster route's path carries its secret, and the answer and the log may be read by others.
 * A path that starts with the base path (AMENDER_BASE_PATH) is given without it (base-path.ts), once
 * parsing has removed its dot segments.
 */
import { withoutPathPrefix } from './base-path.js';
import type { IncomingRequest } from './node-request.js';

/** A request whose Host or target cannot make a URL. */
export class BadRequestError extends Error {}

/** A host name (with an optional port, see plainHost) that is its own URL host, unchanged by parsing. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::([0-9]{1,5}))?$/;
/** A path and query of characters that parsing keeps as they are. */
const PLAIN_TARGET = /^\/[!$&-;=?-[\]_a-z~]*$/;
/** A `.` or `..` segment, which parsing removes. */
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

/** A backslash in the path (before any query) is read as a slash by URL parsers: refused. */
function refuseBackslashPath(target: string): void {
  const backslash = target.indexOf('\\');
  if (backslash === -1) return;
  const query = target.indexOf('?');
  if (query === -1 || backslash < query) throw new BadRequestError('backslash in the request path');
}

function parse(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new BadRequestError('invalid request URL');
  }
}

/** `url`'s href, its path without `basePath` when it starts with it. */
function hrefWithout(url: URL, basePath: string | undefined): string {
  if (basePath !== undefined) url.pathname = withoutPathPrefix(url.pathname, basePath);
  return url.href;
}

/** A plain path and query (no dot segment, nothing parsing changes) without `basePath` when its path starts with it. */
function targetWithout(target: string, basePath: string | undefined): string {
  if (basePath === undefined) return target;
  const query = target.indexOf('?');
  if (query === -1) return withoutPathPrefix(target, basePath);
  return withoutPathPrefix(target.slice(0, query), basePath) + target.slice(query);
}

function plainHost(host: string): boolean {
  const match = PLAIN_HOST.exec(host);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
}

function isHttp2(incoming: IncomingRequest): incoming is IncomingRequest & { scheme: string; authority: string } {
  return incoming.httpVersionMajor === 2;
}

/** `defaultHost` stands in for a missing Host (HTTP/1.0 may omit it); `basePath`: AMENDER_BASE_PATH. */
export function requestUrl(incoming: IncomingRequest, defaultHost: string, basePath?: string): string {
  const target = incoming.url ?? '';
  if (target.startsWith('http://') || target.startsWith('https://')) {
    if (isHttp2(incoming)) throw new BadRequestError('an absolute URL is not allowed in :path over HTTP/2');
    refuseBackslashPath(target);
    return hrefWithout(parse(target), basePath);
  }
  if (target !== '' && target.charCodeAt(0) !== 0x2f) throw new BadRequestError('the request target is neither a path nor an absolute URL');
  let scheme: string;
  let host: string | undefined;
  if (isHttp2(incoming)) {
    scheme = incoming.scheme;
    if (scheme !== 'http' && scheme !== 'https') throw new BadRequestError('unsupported :scheme');
    host = incoming.authority;
  } else {
    scheme = (incoming.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
    host = incoming.headers.host;
  }
  host ||= defaultHost;
  const path = target === '' ? '/' : target;
  if (plainHost(host) && PLAIN_TARGET.test(path) && !DOT_SEGMENT.test(path)) return `${scheme}://${host}${targetWithout(path, basePath)}`;
  refuseBackslashPath(path);
  const url = parse(`${scheme}://${host}${path}`);
  // The parser read the host as something else (credentials, a path, another name): not what was sent.
  const sentName = host.replace(/:[0-9]*$/, '').toLowerCase();
  if (url.hostname !== sentName) throw new BadRequestError('invalid Host header');
  return hrefWithout(url, basePath);
}
