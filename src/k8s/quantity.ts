/**
 * Kubernetes `resource.Quantity` (k8s.io/apimachinery/pkg/api/resource, over gopkg.in/inf.v0),
 * ported once for both engines: ParseQuantity (int64 fast path for at most 18 digits at exponent
 * >= -9, else an inf.Dec rounded up to 10^-9; BinarySI capped at 2^63-1; the exponent wrapped to
 * int32), exact Cmp, Add/Sub (int64 while the result fits, then decimal; the left operand's format
 * unless it is zero), AsInt64, AsApproximateFloat64 (Go's table-based Pow10) and String(). The
 * engines need different parts: CEL shows the representation (`isInteger()` holds only for the
 * int64 form, so `quantity("1.5Gi").isInteger()` is false) and prices every call at a fixed cost,
 * so no call may do unbounded work; Kyverno never shows the representation but divides at the
 * decimal form's scale, multiplies, and prints every result canonically. Exponents: like
 * apimachinery this accepts every exponent that fits an int64, and keeps `unscaled × 10^-scale`
 * without writing the power out, so parsing, comparing, printing and int64 arithmetic cost what
 * the text costs (1e2147483647 included). Only an exact result needing a power of ten beyond
 * 10^MAX_POW10 is refused with {@link QuantityError}: Go would write out up to 2^31 digits, while
 * real quantities span under 30 and at the limit an operation still takes microseconds. So is a text of
 * more than MAX_DIGITS significant digits, which apimachinery reads whole (in quadratic time, as V8 does).
 */
import { parseInt64 } from '../go/index.js';

/** A quantity's value is `unscaled × 10^-scale` (inf.Dec's convention; Go's int64Amount stores `-scale`). */
export interface Quantity {
  readonly unscaled: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
  /** Go holds the value as an inf.Dec, not an int64Amount (absent: the int64 form). */
  readonly decimal?: boolean;
  /** The parsed text when apimachinery keeps it as the String() form (only canonical fast-path input). */
  readonly text?: string;
}

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

export const QUANTITY_REGEXP = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_REGEXP}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";
export const ERR_TOO_LARGE = 'quantity is too large to compute exactly';

/** The largest power of ten this module writes out in full (see the header). */
export const MAX_POW10 = 1000;
/** The most significant digits a parsed text may have: values up to 10^MAX_POW10 with as many decimals. */
export const MAX_DIGITS = 2 * MAX_POW10;

export class QuantityError extends Error {}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** inf scale of the decimal form: values are rounded up to 10^-9. */
const NANO_SCALE = 9;

const SMALL_POW10 = Array.from({ length: 40 }, (_, i) => 10n ** BigInt(i));

/** 10^n for 0 <= n <= MAX_POW10; beyond it the exact result is refused. */
export function powerOfTen(n: number): bigint {
  if (n < SMALL_POW10.length) return SMALL_POW10[n];
  if (n > MAX_POW10) throw new QuantityError(ERR_TOO_LARGE);
  return 10n ** BigInt(n);
}

const inInt64 = (v: bigint) => v >= INT64_MIN && v <= INT64_MAX;
const abs = (v: bigint) => (v < 0n ? -v : v);

function make(unscaled: bigint, scale: number, format: QuantityFormat, decimal: boolean, text?: string): Quantity {
  // `+ 0` turns -0 (from negating a zero exponent) into 0, which V8 stores as a small integer.
  return { unscaled, scale: scale + 0, format, decimal, text };
}

/** resource.NewQuantity(v, format): an int64 at scale 0. */
export function int64Quantity(v: bigint, format: QuantityFormat = 'DecimalExponent'): Quantity {
  return make(v, 0, format, false);
}

/** resource.NewDecimalQuantity(inf.NewDec(unscaled, scale), format). */
export function decimalQuantity(unscaled: bigint, scale: number, format: QuantityFormat): Quantity {
  return make(unscaled, scale, format, true);
}

// ---------------------------------------------------------------------------------------------
// ParseQuantity

/** resource.ParseQuantity. Throws {@link QuantityError} with apimachinery's message. */
export function parseQuantity(str: string): Quantity {
  const q = parse(str);
  if (typeof q === 'string') throw new QuantityError(q);
  return q;
}

/** resource.ParseQuantity without the message: undefined where it fails (or exceeds MAX_POW10). */
export function tryParseQuantity(str: string): Quantity | undefined {
  const q = parse(str);
  return typeof q === 'string' ? undefined : q;
}

/** The reason `str` is no quantity, or undefined when it is one. */
export function quantityParseError(str: string): string | undefined {
  const q = parse(str);
  return typeof q === 'string' ? q : undefined;
}

interface Scanned {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const SUFFIX_CHARS = 'eEinumkKMGTP';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** Go's parseQuantityString: the sign, the digits around '.', and the suffix; or ERR_FORMAT_WRONG. */
function scan(str: string): Scanned | string {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  if (num === '') num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return ERR_FORMAT_WRONG;
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

interface Suffix {
  readonly base: 2 | 10;
  readonly exponent: number;
  readonly format: QuantityFormat;
  /** 2^exponent for BinarySI suffixes (the fast path's multiplier). */
  readonly multiplier: bigint;
}

const SI_SUFFIXES = new Map<string, Suffix>([
  ...Object.entries({ '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 }).map(
    ([s, exponent]) => [s, { base: 10, exponent, format: 'DecimalSI', multiplier: 1n }] as const,
  ),
  ...Object.entries({ Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 }).map(
    ([s, exponent]) => [s, { base: 2, exponent, format: 'BinarySI', multiplier: 1n << BigInt(exponent) }] as const,
  ),
]);
const EXPONENT_DIGITS = /^[+-]?[0-9]+$/;

/** quantitySuffixer.interpret, or undefined (ErrSuffix). */
function interpretSuffix(s: string): Suffix | undefined {
  const si = SI_SUFFIXES.get(s);
  if (si) return si;
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E')) {
    const digits = s.slice(1);
    if (EXPONENT_DIGITS.test(digits)) {
      // strconv.ParseInt(…, 10, 64), then int32(…): beyond int64 is an error, beyond int32 wraps.
      if (digits.length <= 15) return { base: 10, exponent: Number(digits) | 0, format: 'DecimalExponent', multiplier: 1n };
      const big = parseInt64(digits);
      if (big !== undefined) return { base: 10, exponent: Number(BigInt.asIntN(32, big)), format: 'DecimalExponent', multiplier: 1n };
    }
  }
  return undefined;
}

const DECIMAL_NUMBER = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/;

/** inf.Dec.SetString of the numeric prefix as [unscaled, scale]; it needs at least one digit. */
function parseDecimal(value: string): [bigint, number] | undefined {
  const m = DECIMAL_NUMBER.exec(value);
  if (!m || m[2] + (m[3] ?? '') === '') return undefined;
  const digits = BigInt(m[2] + (m[3] ?? ''));
  return [m[1] === '-' ? -digits : digits, m[3]?.length ?? 0];
}

function parse(str: string): Quantity | string {
  if (str.length === 0) return ERR_FORMAT_WRONG;
  if (str === '0') return make(0n, 0, 'DecimalSI', false, str);
  const scanned = scan(str);
  if (typeof scanned === 'string') return scanned;
  const { positive, value, num, denom } = scanned;
  const suffix = interpretSuffix(scanned.suffix);
  if (!suffix) return ERR_SUFFIX;
  const { base, exponent, multiplier } = suffix;
  let format = suffix.format;

  // The int64 fast path (Go's scale here is a base-10 exponent, the opposite of ours).
  let precision: number;
  let goScale = 0;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    goScale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    goScale -= denom.length;
    if (goScale >= -NANO_SCALE) {
      const digits = denom.length === 0 ? num : num + denom;
      // Up to 15 digits a double holds the value exactly, and converts faster than a string.
      const parsed = digits.length <= 15 ? BigInt(Number(digits)) : BigInt(digits);
      const v = parsed * multiplier;
      if (inInt64(v)) {
        const text = fastTextIsCanonical(format, exponent, goScale, digits, parsed) ? str : undefined;
        return make(positive ? v : -v, -goScale, format, false, text);
      }
    }
  }

  // The inf.Dec form: the exact value, rounded up (away from zero) to 10^-9. A text of more significant
  // digits than MAX_DIGITS is refused before BigInt reads it: V8 reads decimal text in superlinear time
  // (the 3,000,000 digits a 3 MiB review holds: 1.5 s in one call the review deadline cannot interrupt).
  // A power of ten written out (1 and zeros) is still read whole, as an earlier fix allowed.
  if (significantDigits(num, denom) > MAX_DIGITS) return ERR_TOO_LARGE;
  const dec = parseDecimal(value);
  if (!dec) return ERR_NUMERIC;
  let [unscaled, scale] = dec;
  if (base === 10) scale -= exponent;
  else unscaled *= 1n << BigInt(exponent);
  const negative = unscaled < 0n;
  if (negative) unscaled = -unscaled;
  if (unscaled !== 0n) {
    const rounded = roundUpToNano(unscaled, scale);
    if (rounded === undefined) return ERR_TOO_LARGE;
    [unscaled, scale] = rounded;
    if (format === 'BinarySI') {
      // maxAllowed is inf.NewDec(2^63-1, 0): the cap also resets the scale.
      if (compareParts(unscaled, scale, INT64_MAX, 0) > 0) [unscaled, scale] = [INT64_MAX, 0];
      else if (compareParts(unscaled, scale, 1n, 0) < 0) format = 'DecimalSI';
    }
  }
  return make(negative ? -unscaled : unscaled, scale, format, true);
}

/**
 * Digits from the first to the last non-zero one of `num` (no leading zeros but a lone '0') and `denom`.
 * Zeros at either end are not counted: a power of ten such as 10^1000000 written out is read as before.
 */
function significantDigits(num: string, denom: string): number {
  const digits = num === '0' ? denom : num + denom;
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++;
  let last = digits.length;
  while (last > first && digits.charCodeAt(last - 1) === 0x30) last--;
  return last - first;
}

/** ParseQuantity's test for reusing the input as the String() form. */
function fastTextIsCanonical(format: QuantityFormat, exponent: number, goScale: number, digits: string, parsed: bigint): boolean {
  if (format === 'BinarySI') return exponent % 10 === 0 && (parsed & 7n) !== 0n;
  return goScale % 3 === 0 && !digits.endsWith('000') && digits[0] !== '0';
}

/** inf.Dec.Round(x, 9, RoundUp) for x > 0; undefined when it needs more than MAX_POW10 digits. */
function roundUpToNano(unscaled: bigint, scale: number): [bigint, number] | undefined {
  if (scale <= NANO_SCALE) {
    const shift = NANO_SCALE - scale;
    return shift > MAX_POW10 ? undefined : [unscaled * powerOfTen(shift), NANO_SCALE];
  }
  const drop = scale - NANO_SCALE;
  // Below 10^-9 altogether: one nano (apimachinery's own shortcut, without building 10^drop).
  if (drop > digitBounds(unscaled)[1]) return [1n, NANO_SCALE];
  const unit = 10n ** BigInt(drop); // no more digits than the input has
  const q = unscaled / unit;
  return [unscaled % unit === 0n ? q : q + 1n, NANO_SCALE];
}

// ---------------------------------------------------------------------------------------------
// Comparison

const LOG10_2 = Math.log10(2);

/** 2^(b-1) <= v < 2^b for v > 0. */
function bitLength(v: bigint): number {
  if (v <= 0xffffffffn) return 32 - Math.clz32(Number(v));
  const hex = v.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0], 16)));
}

/** Bounds on the number of decimal digits of v ≠ 0, from its bit length (no decimal conversion). */
function digitBounds(v: bigint): [number, number] {
  const b = bitLength(abs(v));
  return [Math.floor((b - 1) * LOG10_2 - 1e-9) + 1, Math.floor(b * LOG10_2 + 1e-9) + 1];
}

/** Exact order of u1·10^-s1 and u2·10^-s2, without writing out powers beyond the operands' size. */
function compareParts(u1: bigint, s1: number, u2: bigint, s2: number): -1 | 0 | 1 {
  if (s1 === s2) return u1 < u2 ? -1 : u1 > u2 ? 1 : 0;
  const gap = s2 - s1; // u1 has the larger exponent by `gap`
  if (gap > 0 && gap < SMALL_POW10.length) {
    const a = u1 * SMALL_POW10[gap];
    return a < u2 ? -1 : a > u2 ? 1 : 0;
  }
  if (gap < 0 && -gap < SMALL_POW10.length) {
    const b = u2 * SMALL_POW10[-gap];
    return u1 < b ? -1 : u1 > b ? 1 : 0;
  }
  const sign1 = u1 > 0n ? 1 : u1 < 0n ? -1 : 0;
  const sign2 = u2 > 0n ? 1 : u2 < 0n ? -1 : 0;
  if (sign1 !== sign2) return sign1 < sign2 ? -1 : 1;
  if (sign1 === 0) return 0;
  // |u·10^-s| lies in [10^(lo-1-s), 10^(hi-s)): disjoint ranges settle it (apimachinery's cmpDec).
  const [lo1, hi1] = digitBounds(u1);
  const [lo2, hi2] = digitBounds(u2);
  if (hi1 - s1 < lo2 - s2) return (-sign1) as -1 | 1;
  if (hi2 - s2 < lo1 - s1) return sign1 as -1 | 1;
  // Overlapping magnitudes: the gap is at most the operands' digit count apart.
  const a = gap > 0 ? u1 * 10n ** BigInt(gap) : u1;
  const b = gap < 0 ? u2 * 10n ** BigInt(-gap) : u2;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Quantity.Cmp: -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return compareParts(a.unscaled, a.scale, b.unscaled, b.scale);
}

export function quantitySign(q: Quantity): -1 | 0 | 1 {
  return q.unscaled > 0n ? 1 : q.unscaled < 0n ? -1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Add and Sub

/**
 * Go's int64Amount.Add on (value, base-10 exponent) pairs; undefined when it leaves int64. Go takes
 * the exponent difference in int32, which wraps when the exponents are near ±2^31 apart; this
 * module keeps such sums exact instead, as apimachinery's newer code does with widened scales in
 * Cmp and ParseQuantity (and as it does for String()'s exponent arithmetic). The one int32 wrap
 * reproduced is the exponent's own: ParseInt(…, 64) then int32(…).
 */
function addInt64Amounts(a: bigint, ae: number, b: bigint, be: number): [bigint, number] | undefined {
  if (b === 0n) return [a, ae];
  if (a === 0n) return [b, be];
  if (ae === be) {
    const c = a + b;
    return inInt64(c) ? [c, ae] : undefined;
  }
  if (ae > be) {
    const c = scaleInt64(a, ae - be);
    return c === undefined || !inInt64(c + b) ? undefined : [c + b, be];
  }
  const c = scaleInt64(b, be - ae);
  return c === undefined || !inInt64(a + c) ? undefined : [a + c, ae];
}

/** value × 10^n within int64 (Go's positiveScaleInt64), or undefined. */
function scaleInt64(value: bigint, n: number): bigint | undefined {
  if (n > 18) return undefined;
  const v = value * SMALL_POW10[n];
  return inInt64(v) ? v : undefined;
}

/** inf.Dec Add: both operands at the larger scale. */
function addDecimal(u1: bigint, s1: number, u2: bigint, s2: number): [bigint, number] {
  const s = Math.max(s1, s2);
  return [u1 * powerOfTen(s - s1) + u2 * powerOfTen(s - s2), s];
}

/** Quantity.Add: the int64 form while the sum fits, else the decimal form; y's format when x is zero. */
export function addQuantities(x: Quantity, y: Quantity): Quantity {
  const format = x.unscaled === 0n ? y.format : x.format;
  if (!x.decimal && !y.decimal) {
    const sum = addInt64Amounts(x.unscaled, -x.scale, y.unscaled, -y.scale);
    if (sum) return make(sum[0], -sum[1], format, false);
  }
  const [u, s] = addDecimal(x.unscaled, x.scale, y.unscaled, y.scale);
  return make(u, s, format, true);
}

/** Quantity.Sub, as Add of the negation (and the decimal form when -y overflows int64). */
export function subQuantities(x: Quantity, y: Quantity): Quantity {
  const format = x.unscaled === 0n ? y.format : x.format;
  if (!x.decimal && !y.decimal) {
    // int64Amount.Sub: -y.value overflows for the most negative int64; apimachinery then takes the
    // decimal path when both scales can be aligned there, and otherwise keeps Go's wrapped negation.
    if (y.unscaled !== INT64_MIN || !canAlignScales(-x.scale, -y.scale)) {
      const sum = addInt64Amounts(x.unscaled, -x.scale, BigInt.asIntN(64, -y.unscaled), -y.scale);
      if (sum) return make(sum[0], -sum[1], format, false);
    }
  }
  const [u, s] = addDecimal(x.unscaled, x.scale, -y.unscaled, y.scale);
  return make(u, s, format, true);
}

/** Scale.canAlignInfScale: neither exponent is MinInt32 and their difference fits an int32. */
function canAlignScales(e1: number, e2: number): boolean {
  if (e1 === INT32_MIN || e2 === INT32_MIN) return false;
  const delta = e1 - e2;
  return delta >= -INT32_MAX && delta <= INT32_MAX;
}

// ---------------------------------------------------------------------------------------------
// Conversions

/** Quantity.AsInt64: only the int64 form converts, and only at a non-negative exponent. */
export function quantityAsInt64(q: Quantity): bigint | undefined {
  if (q.decimal) return undefined;
  if (q.scale === 0) return q.unscaled;
  if (q.scale > 0) return undefined;
  if (q.unscaled === 0n) return 0n;
  return scaleInt64(q.unscaled, -q.scale);
}

/** Quantity.AsApproximateFloat64: float64(unscaled) × math.Pow10(-scale). */
export function quantityApproximateFloat(q: Quantity): number {
  const base = Number(q.unscaled);
  if (q.scale === 0) return base;
  return base * goPow10(-q.scale);
}

const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = [1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288];
const POW10_NEG32 = [1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320];

/** Go's math.Pow10: table products, so 10^33 is 1.0000000000000001e33 as in Go, not 1e33. */
export function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.floor(n / 32)] * POW10_TAB[n % 32];
  if (n >= -323 && n <= 0) return POW10_NEG32[Math.floor(-n / 32)] / POW10_TAB[-n % 32];
  return n > 0 ? Infinity : 0;
}

// ---------------------------------------------------------------------------------------------
// String()

const DECIMAL_SI_SUFFIXES = new Map<number, string>([
  [-9, 'n'],
  [-6, 'u'],
  [-3, 'm'],
  [0, ''],
  [3, 'k'],
  [6, 'M'],
  [9, 'G'],
  [12, 'T'],
  [15, 'P'],
  [18, 'E'],
]);
const BINARY_SI_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/**
 * Quantity.String(): the parsed text when apimachinery kept it, else the canonical form: no
 * fractional digits and the largest suffix that loses nothing, in the quantity's format:
 *
 *   DecimalSI        1.5 → "1500m", 2000 → "2k", 1e21 → "1" (no suffix beyond E: apimachinery's quirk)
 *   DecimalExponent  1.5e3 → "1500", 1e3 → "1e3"
 *   BinarySI         1.5Gi → "1536Mi"; values in (-1024, 1024) and non-integers print as DecimalSI
 */
export function formatQuantity(q: Quantity): string {
  return q.text ?? canonicalText(q.unscaled, q.scale, q.format);
}

function canonicalText(unscaled: bigint, scale: number, format: QuantityFormat): string {
  if (unscaled === 0n) return '0';
  if (format === 'BinarySI') {
    const integer = binaryInteger(unscaled, scale);
    if (integer !== undefined) return base1024(integer);
    format = 'DecimalSI';
  }
  const [digits, exponent] = base1000(unscaled, -scale);
  if (format === 'DecimalSI') return digits + (DECIMAL_SI_SUFFIXES.get(exponent) ?? '');
  return exponent === 0 ? digits : `${digits}e${exponent}`;
}

/** The value as an integer when BinarySI prints it: |value| >= 1024 and no fractional part. */
function binaryInteger(unscaled: bigint, scale: number): bigint | undefined {
  let integer: bigint;
  if (scale <= 0) integer = unscaled * powerOfTen(-scale);
  else {
    if (compareParts(abs(unscaled), scale, 1024n, 0) < 0) return undefined;
    const unit = powerOfTen(scale);
    if (unscaled % unit !== 0n) return undefined;
    integer = unscaled / unit;
  }
  return abs(integer) < 1024n ? undefined : integer;
}

/** Digits and a base-10 exponent that is a multiple of 3, trailing zeros moved into the exponent. */
function base1000(unscaled: bigint, exponent: number): [string, number] {
  // The trailing zeros are counted on the digits: dividing them off the bigint, a power of ten at a time,
  // took time quadratic in its length (a minute for a quantity of a million digits).
  const all = unscaled.toString();
  let end = all.length;
  while (end > 1 && all.charCodeAt(end - 1) === 48) end--;
  let digits = all.slice(0, end);
  let e = exponent + (all.length - end);
  // Lower the exponent to the multiple of 3 at or below it.
  const r = ((e % 3) + 3) % 3;
  if (r > 0) {
    digits += '0'.repeat(r);
    e -= r;
  }
  return [digits, e];
}

/** An integer as digits and a binary suffix: 1536·1024² → "1536Mi". */
function base1024(integer: bigint): string {
  const magnitude = abs(integer);
  const trailingZeroBits = bitLength(magnitude & -magnitude) - 1;
  const times = Math.floor(trailingZeroBits / 10);
  return (integer >> BigInt(times * 10)).toString() + (BINARY_SI_SUFFIXES[times] ?? '');
}
