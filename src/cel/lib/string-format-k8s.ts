import { formatFloatG, strconvQuote } from '../../go/index.js';
import { formatTimestamp } from '../engine/time.js';
import { CelUint, Duration, Timestamp } from '../engine/values.js';
import { formatFixed, formatScientific, formatShortest } from './go-float.js';
import {
  ClauseError,
  collectionText,
  durationSeconds,
  integerOf,
  scalarText,
  stringClauseError,
  type FormatClauses,
} from './string-format.js';
import { celTypeName } from './values.js';

/**
 * `<string>.format(<list>)` as Kubernetes' environments have it: cel-go's strings library at version 2,
 * whose formatter (ext/formatting.go, locale en_US) differs from the cel-spec one (string-format.ts):
 * - %s of a list or map writes its members as CEL literals: `["a", 1, 2.500000, timestamp("...")]`,
 *   `{"k":true}` (entries sorted by key text); a double on its own is strconv's shortest 'g' form;
 * - %d takes ints and uints only; %f and %e take doubles only (and the strings "NaN", "Infinity",
 *   "-Infinity");
 * - %f and %e print through golang.org/x/text's message printer: grouped digits (1,234.500000), ∞ for
 *   infinity, and scientific notation as 3.140000×10⁰⁰ — with six decimals whatever the precision, as
 *   the formatter passes the precision as a width (`%2e`).
 * The strings library registers these clauses at version 2 (strings.ts: kubernetesStringsLibrary).
 */

const DECIMALS = 6;
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }); // a leading U+FEFF is text, as in Go

/**
 * Bytes as FormatString converts them (Bytes.ConvertToType(StringType)): invalid UTF-8 is an error
 * value, which FormatString reports with %q of it.
 */
function bytesText(b: Uint8Array): string {
  try {
    return decoder.decode(b);
  } catch {
    throw new ClauseError('could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string');
  }
}

/** %s: the value as cel-go's string conversion gives it; lists and maps as CEL literals. */
function stringClause(v: unknown): string {
  // Timestamp.ConvertToType(string): Time.Format in the timestamp's zone (the cel-spec formatter uses UTC).
  if (v instanceof Timestamp) return formatTimestamp(v);
  if (v instanceof Uint8Array) return bytesText(v);
  const scalar = scalarText(v, formatFloatG);
  if (scalar !== undefined) return scalar;
  const collection = collectionText(v, member, mapKey, ':');
  if (collection !== undefined) return collection;
  throw stringClauseError(v);
}

/** A list or map member as a CEL literal (formatting.go's clauseForType and quoteForCEL). */
function member(v: unknown): string {
  if (typeof v === 'string') return strconvQuote(v);
  if (v instanceof Uint8Array) return `b${strconvQuote(bytesText(v))}`;
  if (typeof v === 'number') {
    // fmt's %f; an infinity or NaN is quoted so the text stays a CEL literal.
    if (Number.isNaN(v)) return '"NaN"';
    if (!Number.isFinite(v)) return v > 0 ? '"+Inf"' : '"-Inf"';
    return formatFixed(v, DECIMALS);
  }
  if (v instanceof Timestamp) return `timestamp(${strconvQuote(formatTimestamp(v))})`;
  if (v instanceof Duration) return `duration(${strconvQuote(`${durationSeconds(v)}s`)})`;
  const scalar = scalarText(v, formatFloatG);
  if (scalar !== undefined) return scalar;
  const collection = collectionText(v, member, mapKey, ':');
  if (collection !== undefined) return collection;
  // clauseForType's refusal, not FormatString's (which only the top-level argument gets).
  throw new ClauseError(`no formatting function for ${celTypeName(v)}`);
}

function mapKey(k: unknown): string {
  if (typeof k === 'string') return strconvQuote(k);
  if (typeof k === 'boolean' || typeof k === 'bigint' || k instanceof CelUint) return String(k instanceof CelUint ? k.value : k);
  throw new ClauseError(`no formatting function for map key of type ${celTypeName(k)}`);
}

function decimalClause(v: unknown): string {
  const n = integerOf(v);
  if (n !== undefined) return n.toString();
  throw new ClauseError(`decimal clause can only be used on integers, was given ${celTypeName(v)}`);
}

/** A double for %f / %e: a double, or one of the strings cel-go converts ("NaN", "Infinity", "-Infinity"). */
function doubleArg(v: unknown, clause: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  throw new ClauseError(`${clause} clause can only be used on doubles, was given ${celTypeName(v)}`);
}

/** How x/text's en_US printer writes NaN and the infinities. */
function special(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '∞';
  if (x === -Infinity) return '-∞';
  return undefined;
}

/** What x/text's printer writes for a clause whose width or precision it cannot read. */
const NO_VERB = '%!(NOVERB)';

/**
 * Whether x/text's format parser gives up on the number `n` in `%.<n>f` or `%<n>e`: parsenum stops, as
 * Go's fmt does, when the digits read before the next one already exceed 10^6 (internal/format/parser.go).
 */
function unreadableNumber(n: number): boolean {
  return Math.floor(n / 10) > 1_000_000;
}

/**
 * %f: cel-go prints `%.<precision>f` with x/text's en_US printer, which groups the integer digits
 * (1,234.500000) and keeps the precision in a uint8 (the fraction digits it pads to) and an int16 (the
 * digits it rounds to; negative: the shortest form), so from 256 on a precision wraps. A negative zero
 * is printed as zero (ConvertFloat reads strconv's '-' as no digits at all).
 */
function fixedClause(v: unknown, precision: number): string {
  let x = doubleArg(v, 'fixed-point');
  if (unreadableNumber(precision)) return NO_VERB;
  const s = special(x);
  if (s !== undefined) return s;
  if (x === 0) x = 0;
  const padTo = precision % 256;
  const roundTo = ((precision + 32768) % 65536) - 32768;
  const text = roundTo >= 0 ? formatFixed(x, roundTo) : formatShortest(x);
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const whole = dot < 0 ? body : body.slice(0, dot);
  const fraction = (dot < 0 ? '' : body.slice(dot + 1).replace(/0+$/, '')).padEnd(padTo, '0');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${negative ? '-' : ''}${grouped}${fraction ? '.' + fraction : ''}`;
}

const SUPERSCRIPT: Record<string, string> = {
  '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹', '-': '⁻', '+': '',
};

/**
 * %e: six decimals, then ×10 and the exponent in superscript digits (3.14 → 3.140000×10⁰⁰). cel-go
 * prints `%<precision>e`, a width: x/text pads the text with spaces on the left to that many characters
 * (a uint16; 0 is the zero flag, no width). A negative zero is printed as zero, as for %f.
 */
function scientificClause(v: unknown, precision: number): string {
  let x = doubleArg(v, 'scientific');
  if (unreadableNumber(precision)) return NO_VERB;
  if (x === 0) x = 0;
  let text = special(x);
  if (text === undefined) {
    const [mantissa, exponent] = formatScientific(x, DECIMALS).split('e');
    text = `${mantissa}×10${[...exponent].map((c) => SUPERSCRIPT[c]).join('')}`;
  }
  const width = precision % 65536;
  const runes = [...text].length;
  return runes < width ? ' '.repeat(width - runes) + text : text;
}

export const KUBERNETES_FORMAT_CLAUSES: FormatClauses = { s: stringClause, d: decimalClause, f: fixedClause, e: scientificClause };
