/**
 * The string validators of `k8s.io/apimachinery/pkg/util/validation` that policy validation uses. Each
 * returns the list of problems (empty when valid), worded as the API server words them.
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;

const dns1123Subdomain = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const dns1035Label = new RegExp(`^${DNS1035_LABEL}$`);
const qualifiedName = new RegExp(`^${QUALIFIED_NAME}$`);
const labelValue = new RegExp(`^${LABEL_VALUE}$`);

function maxLen(n: number): string {
  return `must be no more than ${n} bytes`;
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  const eg = examples.length ? ` (e.g. ${examples.map((e) => `'${e}'`).join(',  or ')}, regex used for validation is '${fmt}')` : ` (regex used for validation is '${fmt}')`;
  return msg + eg;
}

function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** The common shape: a byte-length limit and a regular expression with its explanation. */
function check(value: string, max: number, re: RegExp, explanation: string, fmt: string, ...examples: string[]): string[] {
  const errs: string[] = [];
  if (byteLength(value) > max) errs.push(maxLen(max));
  if (!re.test(value)) errs.push(regexError(explanation, fmt, ...examples));
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  return check(
    value,
    253,
    dns1123Subdomain,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    DNS1123_SUBDOMAIN,
    'example.com',
  );
}

export function isDNS1035Label(value: string): string[] {
  return check(
    value,
    63,
    dns1035Label,
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
    DNS1035_LABEL,
    'my-name',
    'abc-123',
  );
}

function qualifiedNameError(): string {
  return regexError(
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    QUALIFIED_NAME,
    'MyName',
    'my.name',
    '123-abc',
  );
}

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [`a qualified name ${qualifiedNameError()} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLen(63)}`);
  if (name.length > 0 && !qualifiedName.test(name)) errs.push(`name part ${qualifiedNameError()}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  return check(
    value,
    63,
    labelValue,
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    LABEL_VALUE,
    'MyValue',
    'my_value',
    '12345',
  );
}

/** `path.IsValidPathSegmentName`: what may appear as one segment of a REST path. */
export function isPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  if (value.includes('/')) errs.push("may not contain '/'");
  if (value.includes('%')) errs.push("may not contain '%'");
  return errs;
}

const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

export function isCelIdentifier(value: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(value) && !CEL_RESERVED.has(value);
}
