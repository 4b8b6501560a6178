import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { traversal } from './cost.js';
import { celError, parses } from './errors.js';
import { escapedPath, hostname, parseRequestURI, parseURL, port, query, UrlError, urlString, type GoUrl } from './go-url.js';

/**
 * Kubernetes' URL library (`k8s.io/apiserver/pkg/cel/library/urls.go`): an absolute URI or an
 * absolute path, parsed as Go's net/url does.
 *
 *   url(string) -> kubernetes.URL, isURL(string) -> bool
 *   <URL>.getScheme(), .getHost(), .getHostname(), .getPort(), .getEscapedPath() -> string
 *   <URL>.getQuery() -> map<string, list<string>>
 */

export const URL_TYPE = 'kubernetes.URL';

export class URLValue {
  readonly celTypeName = URL_TYPE;
  constructor(
    readonly url: GoUrl,
    /** The text it was parsed from: how the value prints (`amender eval`). */
    readonly text: string,
  ) {}
  toString(): string {
    return this.text;
  }
  /** As Kubernetes' URL.Equal: the reassembled texts (Go's URL.String) are equal; another type has no overload. */
  celEquals(other: unknown): boolean | undefined {
    return other instanceof URLValue ? urlString(this.url) === urlString(other.url) : undefined;
  }
}

function toURL(s: string): URLValue {
  try {
    // ParseRequestURI validates (absolute URI or path); Parse then splits off the fragment,
    // which ParseRequestURI would leave in the path or query.
    parseRequestURI(s);
    return new URLValue(parseURL(s), s);
  } catch (e) {
    if (e instanceof UrlError) throw celError(`URL parse error during conversion from string: ${e.message}`);
    throw e;
  }
}

function isURL(s: string): boolean {
  return parses(() => parseRequestURI(s), UrlError);
}

export const urlLibrary: CelLibrary = {
  name: 'kubernetes.urls',
  register(r: LibraryRegistrar) {
    const U = URL_TYPE;
    r.registerType(U, URLValue);
    r.registerFunction(`url(string): ${U}`, toURL);
    r.registerFunction('isURL(string): bool', isURL);
    r.registerFunction(`${U}.getScheme(): string`, (u: URLValue) => u.url.scheme);
    r.registerFunction(`${U}.getHost(): string`, (u: URLValue) => u.url.host);
    r.registerFunction(`${U}.getHostname(): string`, (u: URLValue) => hostname(u.url));
    r.registerFunction(`${U}.getPort(): string`, (u: URLValue) => port(u.url));
    r.registerFunction(`${U}.getEscapedPath(): string`, (u: URLValue) => escapedPath(u.url));
    r.registerFunction(`${U}.getQuery(): map<string, list<string>>`, (u: URLValue) => query(u.url));
  },
  callCost(name, args) {
    switch (name) {
      case 'url':
        return args.length >= 1 ? traversal(args[0]) : undefined;
      case 'getScheme':
      case 'getHostname':
      case 'getHost':
      case 'getPort':
      case 'getEscapedPath':
      case 'getQuery':
        return 1;
    }
    return undefined;
  },
};
