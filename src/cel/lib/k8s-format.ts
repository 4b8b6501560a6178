import { daysInMonth } from '../../go/index.js';
import { CelOptional } from '../engine/values.js';
import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { regexCost } from './cost.js';
import { parseRequestURI, UrlError } from './go-url.js';
import {
  isQualifiedName,
  isValidLabelValue,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from '../../k8s/index.js';
import { lazyRe2 } from './re2.js';

/**
 * Kubernetes' format library (`k8s.io/apiserver/pkg/cel/library/format.go`): named string
 * validations with the messages Kubernetes' own API validation produces.
 *
 *   format.named(string) -> optional<kubernetes.NamedFormat>
 *   format.dns1123Label(), format.dns1123Subdomain(), ... -> kubernetes.NamedFormat
 *   <NamedFormat>.validate(string) -> optional<list<string>>  (none when valid)
 */

export const FORMAT_TYPE = 'kubernetes.NamedFormat';

const UUID_PATTERN = '(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$';
const BASE64_PATTERN = '^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$';
const DATE_TIME_PATTERN = '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$';
const uuidRe = lazyRe2(UUID_PATTERN);
const base64Re = lazyRe2(BASE64_PATTERN);
const dateTimeRe = lazyRe2(DATE_TIME_PATTERN);

/**
 * The regex size Kubernetes charges a URI validation with (format.go's `urlLength`, govalidator's URL
 * pattern length, fixed when govalidator was dropped): ParseRequestURI itself uses no regex.
 */
const URL_REGEX_SIZE = 1103;


export class NamedFormat {
  readonly celTypeName = FORMAT_TYPE;
  constructor(
    readonly name: string,
    readonly validateFn: (s: string) => string[],
    /** The size of the regex Kubernetes assumes when estimating the cost of validate(). */
    readonly maxRegexSize: number,
  ) {}
  /** By name, as Kubernetes' Format.Equal; another type has no overload (undefined). */
  celEquals(other: unknown): boolean | undefined {
    return other instanceof NamedFormat ? other.name === this.name : undefined;
  }
  /** Its name, as Kubernetes' Format value carries it (`DNS1123Label`): how the value prints. */
  toString(): string {
    return this.name;
  }
}

/** time.Parse("2006-01-02", s) succeeds. */
function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

/** kube-openapi strfmt IsDateTime. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})/.exec(parts[1]);
  if (!m || !dateTimeRe.test(parts[1])) return false;
  return m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

function uriProblems(s: string): string[] {
  try {
    parseRequestURI(s);
    return [];
  } catch (e) {
    if (e instanceof UrlError) return [e.message];
    throw e;
  }
}

const check = (ok: (s: string) => boolean, message: string) => (s: string) => (ok(s) ? [] : [message]);

export const CONSTANT_FORMATS: Record<string, NamedFormat> = {
  dns1123Label: new NamedFormat('DNS1123Label', (s) => nameIsDNSLabel(s, false), 30),
  dns1123Subdomain: new NamedFormat('DNS1123Subdomain', (s) => nameIsDNSSubdomain(s, false), 60),
  dns1035Label: new NamedFormat('DNS1035Label', (s) => nameIsDNS1035Label(s, false), 30),
  qualifiedName: new NamedFormat('QualifiedName', isQualifiedName, 60),
  dns1123LabelPrefix: new NamedFormat('DNS1123LabelPrefix', (s) => nameIsDNSLabel(s, true), 30),
  dns1123SubdomainPrefix: new NamedFormat('DNS1123SubdomainPrefix', (s) => nameIsDNSSubdomain(s, true), 60),
  dns1035LabelPrefix: new NamedFormat('DNS1035LabelPrefix', (s) => nameIsDNS1035Label(s, true), 30),
  labelValue: new NamedFormat('LabelValue', isValidLabelValue, 40),
  uri: new NamedFormat('URI', uriProblems, URL_REGEX_SIZE),
  uuid: new NamedFormat('uuid', check((s) => uuidRe.test(s), 'does not match the UUID format'), UUID_PATTERN.length),
  byte: new NamedFormat('byte', check((s) => base64Re.test(s), 'invalid base64'), BASE64_PATTERN.length),
  date: new NamedFormat('date', check(isDate, 'invalid date'), DATE_TIME_PATTERN.length),
  datetime: new NamedFormat('datetime', check(isDateTime, 'invalid datetime'), DATE_TIME_PATTERN.length),
};

function validate(format: NamedFormat, s: string): CelOptional {
  const problems = format.validateFn(s);
  return problems.length === 0 ? CelOptional.none() : CelOptional.of(problems);
}

export const formatLibrary: CelLibrary = {
  name: 'kubernetes.format',
  register(r: LibraryRegistrar) {
    r.registerType(FORMAT_TYPE, NamedFormat);
    r.registerFunction(`format.named(string): optional<${FORMAT_TYPE}>`, (name: string) =>
      Object.hasOwn(CONSTANT_FORMATS, name) ? CelOptional.of(CONSTANT_FORMATS[name]) : CelOptional.none(),
    );
    for (const [name, format] of Object.entries(CONSTANT_FORMATS)) {
      r.registerFunction(`format.${name}(): ${FORMAT_TYPE}`, () => format);
    }
    r.registerFunction(`${FORMAT_TYPE}.validate(string): optional<list<string>>`, validate);
  },
  callCost(name, args) {
    switch (name) {
      case 'validate': {
        const format = args[0];
        if (!(format instanceof NamedFormat) || args.length < 2) return undefined;
        return regexCost(args[1], format.maxRegexSize);
      }
      case 'format.named':
        return 1;
    }
    return undefined;
  },
};
