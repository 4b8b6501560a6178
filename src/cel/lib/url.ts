import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../library.js';
import { publicName, traversal } from './cost.js';
import { celError, parses } from './errors.js';
import { escapedPath, hostname, parseRequestURI, parseURL, port, query, UrlError, type GoUrl } from './go-url.js';
import { fn } from './register.js';

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
  constructor(readonly url: GoUrl) {}
  celEquals(other: unknown): boolean {
    if (!(other instanceof URLValue)) return false;
    const a = this.url as unknown as Record<string, unknown>;
    const b = other.url as unknown as Record<string, unknown>;
    return Object.keys(a).every((k) => a[k] === b[k]);
  }
}

function toURL(s: string): URLValue {
  try {
    // ParseRequestURI validates (absolute URI or path); Parse then splits off the fragment,
    // which ParseRequestURI would leave in the path or query.
    parseRequestURI(s);
    return new URLValue(parseURL(s));
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
  register(env: Environment) {
    const U = URL_TYPE;
    env.registerType(U, { ctor: URLValue, fields: {} });
    fn(env, `url(string): ${U}`, toURL);
    fn(env, 'isURL(string): bool', isURL);
    fn(env, `${U}.getScheme(): string`, (u: URLValue) => u.url.scheme);
    fn(env, `${U}.getHost(): string`, (u: URLValue) => u.url.host);
    fn(env, `${U}.getHostname(): string`, (u: URLValue) => hostname(u.url));
    fn(env, `${U}.getPort(): string`, (u: URLValue) => port(u.url));
    fn(env, `${U}.getEscapedPath(): string`, (u: URLValue) => escapedPath(u.url));
    fn(env, `${U}.getQuery(): map<string, list<string>>`, (u: URLValue) => query(u.url));
    env.registerOperator(`${U} == ${U}`, (a: URLValue, b: URLValue) => a.celEquals(b));
  },
  callCost(name, args) {
    switch (publicName(name)) {
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
