/**
 * The name and value validators of k8s.io/apimachinery/pkg/util/validation (and the name helpers of
 * pkg/api/validation and pkg/api/validation/path), with the API server's exact messages. Each returns
 * the list of problems, empty when the value is valid.
 *
 * The character rules are scanned by hand rather than by regular expression: linear for any input
 * length (a backtracking `[-a-z0-9]*[a-z0-9]` is quadratic on a long near-miss), and no RE2 needed here.
 * The regular expressions appear only as text, in the messages, as Go prints them.
 */

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const DNS1123_LABEL_MAX_LENGTH = 63;
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const isLowerAlnum = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
const isAlnum = (c: number) => isLowerAlnum(c) || (c >= 0x41 && c <= 0x5a);

/** s[from, to) is non-empty, starts and ends with `edge` characters and has only `edge` or `inner` ones. */
function scan(s: string, from: number, to: number, first: (c: number) => boolean, edge: (c: number) => boolean, inner: (c: number) => boolean): boolean {
  if (to <= from || !first(s.charCodeAt(from)) || !edge(s.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = s.charCodeAt(i);
    if (!edge(c) && !inner(c)) return false;
  }
  return true;
}

const isDash = (c: number) => c === 0x2d;
const isQualifiedExtra = (c: number) => c === 0x2d || c === 0x5f || c === 0x2e;
const isLowerAlpha = (c: number) => c >= 0x61 && c <= 0x7a;

const matchesDNS1123Label = (s: string, from = 0, to = s.length) => scan(s, from, to, isLowerAlnum, isLowerAlnum, isDash);
const matchesDNS1035Label = (s: string) => scan(s, 0, s.length, isLowerAlpha, isLowerAlnum, isDash);
const matchesQualifiedName = (s: string) => scan(s, 0, s.length, isAlnum, isAlnum, isQualifiedExtra);

function matchesDNS1123Subdomain(s: string): boolean {
  let start = 0;
  for (;;) {
    const dot = s.indexOf('.', start);
    const end = dot < 0 ? s.length : dot;
    if (!matchesDNS1123Label(s, start, end)) return false;
    if (dot < 0) return true;
    start = dot + 1;
  }
}

const utf8 = new TextEncoder();

/** Go's len(): UTF-8 bytes. */
function byteLength(s: string): number {
  // Only non-ASCII text is longer in UTF-8 than in UTF-16 units; skip the encoding for the rest.
  return /^[\x00-\x7f]*$/.test(s) ? s.length : utf8.encode(s).length;
}

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/**
 * The same limit as apimachinery's api/validate/content package words it (Kubernetes >= 1.35), whose
 * label key and label value checks util/validation's IsQualifiedName and IsValidLabelValue now are.
 */
function maxBytesError(length: number): string {
  return `must be no more than ${length} bytes`;
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const emptyError = () => 'must be non-empty';

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!matchesDNS1123Label(value)) {
    if (matchesDNS1123Subdomain(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string, tooLong = maxLenError): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(tooLong(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!matchesDNS1123Subdomain(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!matchesDNS1035Label(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

const qualifiedNameError = () => regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc');

/** A label or annotation key: an optional DNS-1123 subdomain prefix and '/', then a name of ≤ 63 bytes. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix, maxBytesError)) errs.push(`prefix part ${msg}`);
  } else {
    // apimachinery >= 0.35 (content.IsLabelKey, which IsQualifiedName now is) says "label key" here.
    return [`a valid label key ${qualifiedNameError()} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxBytesError(63)}`);
  // Go checks the pattern even after an empty name, so an empty name gets both messages.
  if (!matchesQualifiedName(name)) errs.push(`name part ${qualifiedNameError()}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxBytesError(63));
  if (value !== '' && !matchesQualifiedName(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** IANA service name (RFC 6335), as container port names use. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port[0] === '-' || port[port.length - 1] === '-')) {
    errs.push('must not begin or end with a hyphen');
  }
  return errs;
}

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_MAP_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const isConfigKeyChar = (c: number) => isAlnum(c) || isQualifiedExtra(c);

/** A key of a ConfigMap's data/binaryData or a Secret's data (`IsConfigMapKey`). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!scan(value, 0, value.length, isConfigKeyChar, isConfigKeyChar, isConfigKeyChar)) {
    errs.push(regexError(CONFIG_MAP_KEY_MSG, CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  }
  // hasChDirPrefix: a key becomes a file name in a volume.
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** `path.IsValidPathSegmentName`: what may appear as one segment of a REST path. */
export function isPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  if (value.includes('/')) errs.push("may not contain '/'");
  if (value.includes('%')) errs.push("may not contain '%'");
  return errs;
}

/**
 * apimachinery's maskTrailingDash, used by the "prefix" validators (a generated suffix will
 * follow): a trailing '-' is replaced — together with the character before it, as the reference
 * does — by 'a'.
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export const nameIsDNSLabel = (s: string, prefix: boolean) => isDNS1123Label(prefix ? maskTrailingDash(s) : s);
export const nameIsDNSSubdomain = (s: string, prefix: boolean) => isDNS1123Subdomain(prefix ? maskTrailingDash(s) : s);
export const nameIsDNS1035Label = (s: string, prefix: boolean) => isDNS1035Label(prefix ? maskTrailingDash(s) : s);
