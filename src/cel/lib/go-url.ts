import { strconvQuote } from '../../go/index.js';
import { NetipError, parseAddr, type Addr } from './netip.js';

/**
 * The parts of Go's net/url that Kubernetes' URL library and `format.uri()` use: Parse,
 * ParseRequestURI, EscapedPath, Hostname, Port, Query and String, with Go's error texts. Go works on
 * bytes; so does this port (strings are converted to UTF-8 and back).
 */

export class UrlError extends Error {}

const enum Mode {
  Path,
  PathSegment,
  Host,
  Zone,
  UserPassword,
  QueryComponent,
  Fragment,
}

export interface GoUrl {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  forceQuery: boolean;
  fragment: string;
  rawFragment: string;
  /** Go's User: undefined for no `userinfo@`. */
  user: GoUserinfo | undefined;
  /** Go's OmitHost: a scheme and a path without an authority (`http:/p`). */
  omitHost: boolean;
}

export interface GoUserinfo {
  username: string;
  password: string;
  passwordSet: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is text, as in Go

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const unhex = (c: number) => (c <= 57 ? c - 48 : c <= 70 ? c - 55 : c - 87);
const bytesToString = (b: Uint8Array | number[]) => decoder.decode(Uint8Array.from(b));

function shouldEscapeSlow(c: number, mode: Mode): boolean {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === Mode.Host || mode === Mode.Zone) && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) {
    switch (mode) {
      case Mode.Path:
        return ch === '?';
      case Mode.PathSegment:
        return ch === '/' || ch === ';' || ch === ',' || ch === '?';
      case Mode.UserPassword:
        return ch === '@' || ch === '/' || ch === '?' || ch === ':';
      case Mode.QueryComponent:
        return true;
      case Mode.Fragment:
        return false;
    }
  }
  if (mode === Mode.Fragment && '!()*'.includes(ch)) return false;
  return true;
}

/**
 * shouldEscape for each mode and ASCII byte (bytes >= 0x80 are always escaped), computed on first use: at
 * module load every cold start would pay for it, and few policies escape URLs.
 */
let escapeTables: Uint8Array[] | undefined;

function shouldEscape(c: number, mode: Mode): boolean {
  escapeTables ??= Array.from({ length: 7 }, (_, m) => Uint8Array.from({ length: 128 }, (_, b) => (shouldEscapeSlow(b, m as Mode) ? 1 : 0)));
  return c >= 0x80 || escapeTables[mode][c] === 1;
}

function escapeError(s: Uint8Array, i: number): UrlError {
  return new UrlError(`invalid URL escape ${strconvQuote(bytesToString(s.subarray(i, i + 3)))}`);
}

const NON_ASCII = /[^\x00-\x7f]/;
const ESCAPES = /[%+]/;

/** Go's unescape; `s` is UTF-8. */
function unescape(input: string, mode: Mode): string {
  if (mode !== Mode.Host && mode !== Mode.Zone && !ESCAPES.test(input)) return input;
  const s = encoder.encode(input);
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (c === 37 /* % */) {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) throw escapeError(s, i);
      const v = (unhex(s[i + 1]) << 4) | unhex(s[i + 2]);
      const is25 = s[i + 1] === 50 && s[i + 2] === 53;
      if (mode === Mode.Host && unhex(s[i + 1]) < 8 && !is25) throw escapeError(s, i);
      if (mode === Mode.Zone && !is25 && v !== 32 && shouldEscape(v, Mode.Host)) throw escapeError(s, i);
      i += 3;
    } else if (c === 43 /* + */) {
      hasPlus = mode === Mode.QueryComponent;
      i++;
    } else {
      if ((mode === Mode.Host || mode === Mode.Zone) && c < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${strconvQuote(String.fromCharCode(c))} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return input;
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === 37) {
      out.push((unhex(s[i + 1]) << 4) | unhex(s[i + 2]));
      i += 2;
    } else if (c === 43) out.push(mode === Mode.QueryComponent ? 32 : 43);
    else out.push(c);
  }
  return bytesToString(out);
}

const HEX = '0123456789ABCDEF';

function escape(input: string, mode: Mode): string {
  const bytes = NON_ASCII.test(input) ? encoder.encode(input) : undefined;
  const n = bytes ? bytes.length : input.length;
  let i = 0;
  // Most paths need no escaping: return the input itself when nothing needs it.
  if (!bytes) while (i < n && !shouldEscape(input.charCodeAt(i), mode)) i++;
  if (i === n) return input;
  let out = input.slice(0, i);
  for (; i < n; i++) {
    const c = bytes ? bytes[i] : input.charCodeAt(i);
    if (c === 32 && mode === Mode.QueryComponent) out += '+';
    else if (shouldEscape(c, mode)) out += `%${HEX[c >> 4]}${HEX[c & 15]}`;
    else out += String.fromCharCode(c);
  }
  return out;
}

function validEncoded(s: string, mode: Mode): boolean {
  for (const c of encoder.encode(s)) {
    if (`!$&'()*+,;=:@[]%`.includes(String.fromCharCode(c))) continue;
    if (shouldEscape(c, mode)) return false;
  }
  return true;
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^[0-9]*$/.test(port.slice(1));
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c === '+' || c === '-' || c === '.') {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/**
 * Go's parseHost (Go 1.26, the toolchain and GODEBUG defaults of kube-apiserver since 1.36): a bracketed
 * host must be an IPv6 address (CVE-2025-47912) and an IPv4 one inside brackets is refused; an http or
 * https host may hold one colon only, the port's (urlstrictcolons, go.dev/issue/75223), while other
 * schemes keep the last colon as the port's (go.dev/issue/78077).
 */
function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new UrlError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${strconvQuote(colonPort)} after host`);
    const unescapedColonPort = unescape(colonPort, Mode.Host);
    const name = host.slice(1, close);
    const zone = name.indexOf('%25');
    const unescapedName = zone < 0 ? unescape(name, Mode.Host) : unescape(name.slice(0, zone), Mode.Host) + unescape(name.slice(zone), Mode.Zone);
    let addr: Addr;
    try {
      addr = parseAddr(unescapedName);
    } catch (e) {
      if (e instanceof NetipError) throw new UrlError(`invalid host: ${e.message}`);
      throw e;
    }
    if (addr.is4()) throw new UrlError('invalid IP-literal');
    return `[${unescapedName}]${unescapedColonPort}`;
  }
  let colon = host.indexOf(':');
  if (colon !== -1) {
    const last = host.lastIndexOf(':');
    if (last !== colon && scheme !== 'http' && scheme !== 'https') colon = last;
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${strconvQuote(colonPort)} after host`);
  }
  return unescape(host, Mode.Host);
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

function parseAuthority(scheme: string, authority: string): { host: string; user: GoUserinfo | undefined } {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return { host, user: undefined };
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) throw new UrlError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) return { host, user: { username: unescape(userinfo, Mode.UserPassword), password: '', passwordSet: false } };
  const username = unescape(userinfo.slice(0, colon), Mode.UserPassword);
  const password = unescape(userinfo.slice(colon + 1), Mode.UserPassword);
  return { host, user: { username, password, passwordSet: true } };
}

function parse(raw: string, viaRequest: boolean): GoUrl {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  const url: GoUrl = {
    scheme: '',
    opaque: '',
    host: '',
    path: '',
    rawPath: '',
    rawQuery: '',
    forceQuery: false,
    fragment: '',
    rawFragment: '',
    user: undefined,
    omitHost: false,
  };
  if (raw === '*') {
    url.path = '*';
    return url;
  }
  let [scheme, rest] = getScheme(raw);
  url.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    if (viaRequest) throw new UrlError('invalid URI for request');
    const slash = rest.indexOf('/');
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(':')) throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const a = parseAuthority(url.scheme, authority);
    url.host = a.host;
    url.user = a.user;
  } else if (url.scheme !== '' && rest.startsWith('/')) {
    url.omitHost = true;
  }
  url.path = unescape(rest, Mode.Path);
  url.rawPath = escape(url.path, Mode.Path) === rest ? '' : rest;
  return url;
}

function wrap(op: string, raw: string, f: () => GoUrl): GoUrl {
  try {
    return f();
  } catch (e) {
    if (e instanceof UrlError) throw new UrlError(`${op} ${strconvQuote(raw)}: ${e.message}`);
    throw e;
  }
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path; no fragment handling. */
export function parseRequestURI(raw: string): GoUrl {
  return wrap('parse', raw, () => parse(raw, true));
}

/** Go's url.Parse. */
export function parseURL(raw: string): GoUrl {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const url = wrap('parse', u, () => parse(u, false));
  const frag = hash < 0 ? '' : raw.slice(hash + 1);
  if (frag !== '') {
    wrap('parse', raw, () => {
      url.fragment = unescape(frag, Mode.Fragment);
      url.rawFragment = escape(url.fragment, Mode.Fragment) === frag ? '' : frag;
      return url;
    });
  }
  return url;
}

function escapedFragment(u: GoUrl): string {
  if (u.rawFragment !== '' && validEncoded(u.rawFragment, Mode.Fragment)) {
    try {
      if (unescape(u.rawFragment, Mode.Fragment) === u.fragment) return u.rawFragment;
    } catch {
      // fall through to the default encoding
    }
  }
  return escape(u.fragment, Mode.Fragment);
}

/** Go's URL.String(): the URL reassembled; Kubernetes' URL values are equal when these are. */
export function urlString(u: GoUrl): string {
  let out = u.scheme === '' ? '' : `${u.scheme}:`;
  if (u.opaque !== '') out += u.opaque;
  else {
    if ((u.scheme !== '' || u.host !== '' || u.user) && !(u.omitHost && u.host === '' && !u.user)) {
      if (u.host !== '' || u.path !== '' || u.user) out += '//';
      if (u.user) {
        out += escape(u.user.username, Mode.UserPassword);
        if (u.user.passwordSet) out += `:${escape(u.user.password, Mode.UserPassword)}`;
        out += '@';
      }
      if (u.host !== '') out += escape(u.host, Mode.Host);
    }
    const path = escapedPath(u);
    if (path !== '' && path[0] !== '/' && u.host !== '') out += '/';
    if (out === '' && path.split('/', 1)[0].includes(':')) out += './';
    out += path;
  }
  if (u.forceQuery || u.rawQuery !== '') out += `?${u.rawQuery}`;
  if (u.fragment !== '') out += `#${escapedFragment(u)}`;
  return out;
}

export function escapedPath(u: GoUrl): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath, Mode.Path)) {
    try {
      if (unescape(u.rawPath, Mode.Path) === u.path) return u.rawPath;
    } catch {
      // fall through to the default encoding
    }
  }
  if (u.path === '*') return '*';
  return escape(u.path, Mode.Path);
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

export const hostname = (u: GoUrl) => splitHostPort(u.host)[0];
export const port = (u: GoUrl) => splitHostPort(u.host)[1];

/** Go's ParseQuery limit (defaultMaxParams, GODEBUG urlmaxqueryparams): more parameters parse to nothing. */
const MAX_QUERY_PARAMS = 10_000;

/**
 * Go's u.Query(): keys to values in order of appearance; malformed pairs are skipped, and a query of more
 * than MAX_QUERY_PARAMS parameters (`&`-separated parts, empty ones included) is empty.
 */
export function query(u: GoUrl): Map<string, string[]> {
  const m = new Map<string, string[]>();
  let params = 1;
  for (let i = u.rawQuery.indexOf('&'); i >= 0 && params <= MAX_QUERY_PARAMS; i = u.rawQuery.indexOf('&', i + 1)) params++;
  if (params > MAX_QUERY_PARAMS) return m;
  for (const pair of u.rawQuery === '' ? [] : u.rawQuery.split('&')) {
    if (pair.includes(';') || pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    let key: string;
    let value: string;
    try {
      key = unescape(rawKey, Mode.QueryComponent);
      value = unescape(rawValue, Mode.QueryComponent);
    } catch {
      continue;
    }
    const list = m.get(key);
    if (list) list.push(value);
    else m.set(key, [value]);
  }
  return m;
}
