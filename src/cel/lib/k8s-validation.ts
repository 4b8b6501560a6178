import { lazyRe2 } from './re2.js';

/**
 * Kubernetes' name and value validators (k8s.io/apimachinery/pkg/util/validation and
 * pkg/api/validation) with their exact messages. Each returns the list of problems, empty when
 * the value is valid.
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
const QNAME_CHAR_FMT = '[A-Za-z0-9]';
const QNAME_EXT_CHAR_FMT = '[-A-Za-z0-9_.]';
const QUALIFIED_NAME_FMT = `(${QNAME_CHAR_FMT}${QNAME_EXT_CHAR_FMT}*)?${QNAME_CHAR_FMT}`;
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

// Go's regexp semantics and linear time for any input length (RE2; see re2.ts).
const dns1123Label = lazyRe2(`^${DNS1123_LABEL_FMT}$`);
const dns1123Subdomain = lazyRe2(`^${DNS1123_SUBDOMAIN_FMT}$`);
const dns1035Label = lazyRe2(`^${DNS1035_LABEL_FMT}$`);
const qualifiedName = lazyRe2(`^${QUALIFIED_NAME_FMT}$`);
const labelValue = lazyRe2(`^${LABEL_VALUE_FMT}$`);

/** Go's len(): UTF-8 bytes. */
function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export const emptyError = () => 'must be non-empty';

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1123Label.test(value)) {
    if (dns1123Subdomain.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123Subdomain.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1035Label.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedName.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!labelValue.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
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

/**
 * apimachinery's maskTrailingDash, used by the "prefix" validators (a generated suffix will
 * follow): a trailing '-' is replaced — together with the character before it, as the reference
 * does — by 'a'.
 */
export function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export const nameIsDNSLabel = (s: string, prefix: boolean) => isDNS1123Label(prefix ? maskTrailingDash(s) : s);
export const nameIsDNSSubdomain = (s: string, prefix: boolean) => isDNS1123Subdomain(prefix ? maskTrailingDash(s) : s);
export const nameIsDNS1035Label = (s: string, prefix: boolean) => isDNS1035Label(prefix ? maskTrailingDash(s) : s);
