import { parseInt64 } from '../../go/index.js';
import { checkBuiltSize } from '../engine/bounds.js';
import { CelOptional, CelUint, Duration, Timestamp, TypeValue } from '../engine/values.js';
import { celError } from './errors.js';
import { formatFixed, formatScientific, formatShortest } from './go-float.js';
import { celTypeName, compareStrings, isList, isMap, listItems, mapEntries } from './values.js';

/**
 * cel-go's `<string>.format(<list>)` (ext strings): clauses %s %d %f %e %b %o %x %X with an optional
 * precision (`%.3f`), `%%` for a percent sign. Two flavours:
 * - `cel-spec` (strings version 4 and later, as the cel-spec conformance data pins it);
 * - `kubernetes`: the formatter of strings version 2, which Kubernetes' environments use
 *   (string-format-k8s.ts): %s writes list and map members as CEL literals, %d takes integers only,
 *   %f / %e take doubles only and print as golang.org/x/text does for en_US.
 */

const DEFAULT_PRECISION = 6;
/** The cel-spec flavour's bound on a precision, against `%.100000000f` building huge strings. */
const MAX_PRECISION = 1000;

/** A clause's error: reported as `error during formatting: <message>`. */
export class ClauseError extends Error {}

/** The clauses of one flavour, by verb (a precision is passed to %f and %e). */
export interface FormatClauses {
  s(arg: unknown): string;
  d(arg: unknown): string;
  f(arg: unknown, precision: number): string;
  e(arg: unknown, precision: number): string;
  /** The largest precision accepted; none when undefined (the clauses then bound their own output). */
  readonly maxPrecision?: number;
}

export function formatString(format: string, args: readonly unknown[], clauses: FormatClauses = CEL_SPEC_CLAUSES): string {
  let out = '';
  let argIndex = 0;
  for (let i = 0; i < format.length; ) {
    const c = format[i];
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw celError(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw celError('unexpected end of string');
    const [read, clause] = parseClause(format, i + 1, clauses);
    try {
      out += clause(args[argIndex]);
      checkBuiltSize(out.length, 'the result of format');
    } catch (e) {
      if (e instanceof ClauseError) throw celError(`error during formatting: ${e.message}`);
      throw e;
    }
    i += 1 + read;
    argIndex++;
  }
  return out;
}

type Clause = (arg: unknown) => string;

function parseClause(format: string, start: number, clauses: FormatClauses): [number, Clause] {
  let i = start;
  let precision = DEFAULT_PRECISION;
  if (format[i] === '.') {
    i++;
    let digits = '';
    for (;;) {
      if (i >= format.length) {
        throw parseError('error while parsing precision: could not find end of precision specifier');
      }
      const d = format[i];
      if (d < '0' || d > '9') break;
      digits += d;
      i++;
    }
    if (digits === '') {
      throw parseError(
        'error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
      );
    }
    if (parseInt64(digits) === undefined) {
      throw parseError(`error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "${digits}": value out of range`);
    }
    precision = Number(digits);
    const max = clauses.maxPrecision;
    if (max !== undefined && precision > max) {
      throw parseError(`error while parsing precision: precision ${precision} exceeds maximum allowed precision ${max}`);
    }
  }
  const r = verbAt(format, i);
  const read = i - start + 1;
  switch (r) {
    case 's':
      return [read, (a) => clauses.s(a)];
    case 'd':
      return [read, (a) => clauses.d(a)];
    case 'f':
      return [read, (a) => clauses.f(a, precision)];
    case 'e':
      return [read, (a) => clauses.e(a, precision)];
    case 'b':
      return [read, binaryClause];
    case 'x':
    case 'X':
      return [read, (a) => hexClause(a, r === 'X')];
    case 'o':
      return [read, octalClause];
    default:
      throw parseError(`unrecognized formatting clause "${r}"`);
  }
}


/**
 * The verb as cel-go reads it, `rune(formatStr[i])`: one byte of the UTF-8 text, so a character outside
 * ASCII is its first byte read as Latin-1 ('%é' is the clause "Ã"; none of them is a verb).
 */
function verbAt(format: string, i: number): string {
  let cp = format.codePointAt(i)!;
  if (cp < 0x80) return format[i];
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate is U+FFFD in Go's text
  const lead = cp < 0x800 ? 0xc0 | (cp >> 6) : cp < 0x10000 ? 0xe0 | (cp >> 12) : 0xf0 | (cp >> 18);
  return String.fromCharCode(lead);
}

function parseError(message: string) {
  return celError(`could not parse formatting clause: ${message}`);
}

function specialDouble(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is text, as in Go

/** %s: the value as text; lists and maps recursively, map entries sorted by their text. */
export function stringClause(v: unknown): string {
  if (v instanceof CelOptional) throw stringClauseError(v);
  const scalar = scalarText(v, (x) => specialDouble(x) ?? formatShortest(x));
  if (scalar !== undefined) return scalar;
  const collection = collectionText(v, stringClause, stringClause, ': ');
  if (collection !== undefined) return collection;
  throw stringClauseError(v);
}

/**
 * A value that is not a list or map as %s writes it, doubles by `double`; undefined for lists, maps and
 * values %s does not take.
 */
export function scalarText(v: unknown, double: (x: number) => string): string | undefined {
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
    case 'bigint':
      return String(v);
    case 'number':
      return double(v);
  }
  if (v === null) return 'null';
  if (v instanceof CelUint) return String(v.value);
  if (v instanceof Uint8Array) return decoder.decode(v);
  if (v instanceof Duration) return `${durationSeconds(v)}s`;
  if (v instanceof Timestamp) return rfc3339Nano(v);
  if (v instanceof TypeValue) return v.name;
  return undefined;
}

/**
 * A list or map as %s writes it: its members by `member`, a map's keys by `key` (entries sorted by
 * the keys' text), `[a, b]` and `{k<separator>v, …}`; undefined for any other value. The text is
 * checked as it grows: a list that holds itself many times over prints exponentially long.
 */
export function collectionText(v: unknown, member: (x: unknown) => string, key: (k: unknown) => string, keySeparator: string): string | undefined {
  if (isList(v)) {
    const parts: string[] = [];
    let size = 2;
    for (const x of listItems(v)) {
      const s = member(x);
      size += s.length + 2;
      checkBuiltSize(size, 'the result of format');
      parts.push(s);
    }
    return `[${parts.join(', ')}]`;
  }
  if (isMap(v)) {
    let size = 2;
    const entries = mapEntries(v).map(([k, val]) => {
      const entry = [key(k), member(val)] as const;
      size += entry[0].length + entry[1].length + 2 + keySeparator.length;
      checkBuiltSize(size, 'the result of format');
      return entry;
    });
    entries.sort((a, b) => compareStrings(a[0], b[0]));
    return `{${entries.map(([k, val]) => `${k}${keySeparator}${val}`).join(', ')}}`;
  }
  return undefined;
}

export function stringClauseError(v: unknown): ClauseError {
  return new ClauseError(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${celTypeName(v)}`,
  );
}

export function durationSeconds(d: Duration): string {
  const nanos = d.ns;
  // Go: float64(sec) + float64(nsec)/1e9, then the shortest form.
  const sec = nanos / 1_000_000_000n;
  const nsec = nanos % 1_000_000_000n;
  return formatShortest(Number(sec) + Number(nsec) / 1e9);
}

/** Go's time.RFC3339Nano in UTC: fractional seconds with trailing zeros removed. */
export function rfc3339Nano(t: Timestamp): string {
  const ns = t.ns;
  const nanosOfSecond = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  const whole = new Date(Number((ns - nanosOfSecond) / 1_000_000n)).toISOString().slice(0, 19);
  const frac = nanosOfSecond.toString().padStart(9, '0').replace(/0+$/, '');
  return `${whole}${frac ? '.' + frac : ''}Z`;
}

export function integerOf(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (v instanceof CelUint) return v.value;
  return undefined;
}

function decimalClause(v: unknown): string {
  const n = integerOf(v);
  if (n !== undefined) return n.toString();
  if (typeof v === 'number') return specialDouble(v) ?? formatShortest(v);
  throw new ClauseError(`decimal clause can only be used on integers, was given ${celTypeName(v)}`);
}

function numberForFloatClause(v: unknown, clause: string): number {
  if (typeof v === 'number') return v;
  const n = integerOf(v);
  if (n !== undefined) return Number(n);
  throw new ClauseError(`${clause} clause can only be used on doubles, was given ${celTypeName(v)}`);
}

function fixedClause(v: unknown, precision: number): string {
  const x = numberForFloatClause(v, 'fixed-point');
  return specialDouble(x) ?? formatFixed(x, precision);
}

function scientificClause(v: unknown, precision: number): string {
  const x = numberForFloatClause(v, 'scientific');
  return specialDouble(x) ?? formatScientific(x, precision);
}

function binaryClause(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  const n = integerOf(v);
  if (n !== undefined) return n.toString(2);
  throw new ClauseError(`only integers and bools can be formatted as binary, was given ${celTypeName(v)}`);
}

function octalClause(v: unknown): string {
  const n = integerOf(v);
  if (n !== undefined) return n.toString(8);
  throw new ClauseError(`octal clause can only be used on integers, was given ${celTypeName(v)}`);
}

function hexClause(v: unknown, upper: boolean): string {
  let out: string;
  const n = integerOf(v);
  if (n !== undefined) out = n.toString(16);
  else if (typeof v === 'string') out = bytesHex(encoder.encode(v));
  else if (v instanceof Uint8Array) out = bytesHex(v);
  else {
    throw new ClauseError(`only integers, byte buffers, and strings can be formatted as hex, was given ${celTypeName(v)}`);
  }
  return upper ? out.toUpperCase() : out;
}

function bytesHex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

const CEL_SPEC_CLAUSES: FormatClauses = { s: stringClause, d: decimalClause, f: fixedClause, e: scientificClause, maxPrecision: MAX_PRECISION };
