/**
 * Kubernetes `resource.Quantity` (k8s.io/apimachinery/pkg/api/resource): parsing, exact decimal
 * arithmetic and comparison with the reference's observable behaviour, including its two internal
 * forms. A quantity parsed by the fast path (at most 18 digits, scale >= -9) is an int64 "amount"
 * `value × 10^scale`; anything else becomes an arbitrary-precision decimal rounded up to 10^-9.
 * Which form a value has is visible: `asInteger()` only succeeds on the int64 form with a
 * non-negative scale (so `quantity("1.5Gi").isInteger()` is false), and `asApproximateFloat()`
 * multiplies the form's own mantissa by 10^exponent.
 */

import { canonicalQuantity } from './quantity-string.js';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const NANO = -9;
/** Largest decimal exponent span this implementation materialises (Go would run for minutes). */
const MAX_DIGITS = 100_000;

export const QUANTITY_REGEXP = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_REGEXP}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

export class QuantityError extends Error {}

export class Quantity {
  readonly celTypeName = 'kubernetes.Quantity';

  /**
   * @param mantissa the int64 value (int form) or the unscaled decimal (decimal form)
   * @param exponent the value is mantissa × 10^exponent
   * @param decimal true for the arbitrary-precision form
   */
  constructor(
    readonly mantissa: bigint,
    readonly exponent: number,
    readonly decimal: boolean,
    readonly format: QuantityFormat,
    /** The parsed text when it is already canonical (Go caches it and String() returns it as is). */
    private readonly text?: string,
  ) {}

  sign(): -1 | 0 | 1 {
    return this.mantissa > 0n ? 1 : this.mantissa < 0n ? -1 : 0;
  }

  isZero(): boolean {
    return this.mantissa === 0n;
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    return compareDecimal(this.mantissa, this.exponent, other.mantissa, other.exponent);
  }

  celEquals(other: unknown): boolean {
    return other instanceof Quantity && this.cmp(other) === 0;
  }

  celCompare(other: unknown): -1 | 0 | 1 {
    return this.cmp(other as Quantity);
  }

  /** Go's AsInt64: only the int64 form converts, and only without a fractional scale. */
  asInt64(): bigint | undefined {
    if (this.decimal) return undefined;
    if (this.exponent === 0) return this.mantissa;
    if (this.exponent < 0) return undefined;
    if (this.mantissa === 0n) return 0n;
    if (this.exponent > 18) return undefined;
    const v = this.mantissa * 10n ** BigInt(this.exponent);
    return v < INT64_MIN || v > INT64_MAX ? undefined : v;
  }

  /** Go's AsApproximateFloat64: float(mantissa) × Pow10(exponent). */
  asApproximateFloat(): number {
    const base = Number(this.mantissa);
    if (this.exponent === 0) return base;
    return base * goPow10(this.exponent);
  }

  add(y: Quantity): Quantity {
    const format = this.isZero() ? y.format : this.format;
    if (!this.decimal && !y.decimal) {
      const sum = addInt64Amounts(this.mantissa, this.exponent, y.mantissa, y.exponent);
      if (sum) return new Quantity(sum[0], sum[1], false, this.mantissa === 0n ? y.format : this.format);
    }
    const [m, e] = addDecimal(this.mantissa, this.exponent, y.mantissa, y.exponent);
    return new Quantity(m, e, true, format);
  }

  sub(y: Quantity): Quantity {
    const format = this.isZero() ? y.format : this.format;
    if (!this.decimal && !y.decimal) {
      // Go negates the int64 with wrap-around (int64Amount.Sub).
      const sum = addInt64Amounts(this.mantissa, this.exponent, BigInt.asIntN(64, -y.mantissa), y.exponent);
      if (sum) return new Quantity(sum[0], sum[1], false, format);
    }
    const [m, e] = addDecimal(this.mantissa, this.exponent, -y.mantissa, y.exponent);
    return new Quantity(m, e, true, format);
  }

  /** apimachinery's Quantity.String(): the canonical form (`1500m`, `1536Mi`, `1e3`), or the parsed text when canonical. */
  toString(): string {
    return this.text ?? canonicalQuantity(this.mantissa, this.exponent, this.format);
  }

  /** resource.NewQuantity(v, DecimalExponent). */
  static fromInt(v: bigint): Quantity {
    return new Quantity(v, 0, false, 'DecimalExponent');
  }
}

const SMALL_POW10 = Array.from({ length: 40 }, (_, i) => 10n ** BigInt(i));

function digitCount(v: bigint): number {
  return (v < 0n ? -v : v).toString().length;
}

function pow10(n: number): bigint {
  if (n < SMALL_POW10.length) return SMALL_POW10[n];
  if (n > MAX_DIGITS) throw new QuantityError('quantity is too large to compute exactly');
  return 10n ** BigInt(n);
}

/** Exact comparison of m1·10^e1 and m2·10^e2 without materialising large exponents. */
function compareDecimal(m1: bigint, e1: number, m2: bigint, e2: number): -1 | 0 | 1 {
  if (e1 === e2) return m1 < m2 ? -1 : m1 > m2 ? 1 : 0;
  const gap = e1 - e2;
  if (gap > 0 && gap < SMALL_POW10.length) {
    const a = m1 * SMALL_POW10[gap];
    return a < m2 ? -1 : a > m2 ? 1 : 0;
  }
  if (gap < 0 && -gap < SMALL_POW10.length) {
    const b = m2 * SMALL_POW10[-gap];
    return m1 < b ? -1 : m1 > b ? 1 : 0;
  }
  const s1 = m1 > 0n ? 1 : m1 < 0n ? -1 : 0;
  const s2 = m2 > 0n ? 1 : m2 < 0n ? -1 : 0;
  if (s1 !== s2) return s1 < s2 ? -1 : 1;
  if (s1 === 0) return 0;
  const mag1 = digitCount(m1) + e1;
  const mag2 = digitCount(m2) + e2;
  if (mag1 !== mag2) return ((mag1 < mag2 ? -1 : 1) * s1) as -1 | 1;
  // Same order of magnitude: the exponent gap is at most the digit count gap.
  let a = m1;
  let b = m2;
  if (e1 > e2) a *= 10n ** BigInt(e1 - e2);
  else if (e2 > e1) b *= 10n ** BigInt(e2 - e1);
  return a < b ? -1 : a > b ? 1 : 0;
}

function addDecimal(m1: bigint, e1: number, m2: bigint, e2: number): [bigint, number] {
  const e = Math.min(e1, e2);
  return [m1 * pow10(e1 - e) + m2 * pow10(e2 - e), e];
}

function inInt64(v: bigint): boolean {
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** value × 10^scale within int64 (Go's positiveScaleInt64), or undefined on overflow. */
function scaleInt64(value: bigint, scale: number): bigint | undefined {
  if (value === 0n) return 0n;
  if (scale > 18) return undefined;
  const v = value * SMALL_POW10[scale];
  return inInt64(v) ? v : undefined;
}

/** int64Amount.Add: the sum at the smaller scale, or undefined when it leaves int64. */
function addInt64Amounts(a: bigint, as: number, b: bigint, bs: number): [bigint, number] | undefined {
  if (b === 0n) return [a, as];
  if (a === 0n) return [b, bs];
  if (as === bs) {
    const c = a + b;
    return inInt64(c) ? [c, as] : undefined;
  }
  if (as > bs) {
    const c = scaleInt64(a, as - bs);
    if (c === undefined || !inInt64(c + b)) return undefined;
    return [c + b, bs];
  }
  const c = scaleInt64(b, bs - as);
  if (c === undefined || !inInt64(a + c)) return undefined;
  return [a + c, as];
}

const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = [1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288];
const POW10_NEG32 = [1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320];

/** Go's math.Pow10 (table based, so results match Go bit for bit). */
export function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.floor(n / 32)] * POW10_TAB[n % 32];
  if (n >= -323 && n <= 0) return POW10_NEG32[Math.floor(-n / 32)] / POW10_TAB[-n % 32];
  return n > 0 ? Infinity : 0;
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

/** Go's parseQuantityString. */
function scan(str: string): Scanned {
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
  if (pos < end) throw new QuantityError(ERR_FORMAT_WRONG);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

const DECIMAL_SUFFIXES: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

const EXPONENT_DIGITS = /^[+-]?[0-9]+$/;
const DECIMAL_NUMBER = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/;

function interpretSuffix(s: string): { base: 2 | 10; exponent: number; format: QuantityFormat } {
  if (Object.hasOwn(DECIMAL_SUFFIXES, s)) return { base: 10, exponent: DECIMAL_SUFFIXES[s], format: 'DecimalSI' };
  if (Object.hasOwn(BINARY_SUFFIXES, s)) return { base: 2, exponent: BINARY_SUFFIXES[s], format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E')) {
    const digits = s.slice(1);
    if (EXPONENT_DIGITS.test(digits)) {
      const parsed = BigInt(digits);
      // strconv.ParseInt(…, 64) then int32(parsed): out of int64 is an error, int32 wraps.
      if (parsed >= INT64_MIN && parsed <= INT64_MAX) {
        return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
      }
    }
  }
  throw new QuantityError(ERR_SUFFIX);
}

/** inf.Dec.SetString on the numeric prefix (sign, digits, at most one '.'). */
function parseDecimal(value: string): [bigint, number] {
  const m = DECIMAL_NUMBER.exec(value);
  if (!m || m[2] + (m[3] ?? '') === '') throw new QuantityError(ERR_NUMERIC);
  const digits = BigInt(m[2] + (m[3] ?? ''));
  return [m[1] === '-' ? -digits : digits, -(m[3]?.length ?? 0)];
}

/** resource.ParseQuantity. Throws {@link QuantityError} with the reference's error text. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityError(ERR_FORMAT_WRONG);
  if (str === '0') return new Quantity(0n, 0, false, 'DecimalSI', str);
  const { positive, value, num, denom, suffix } = scan(str);
  let { base, exponent, format } = interpretSuffix(suffix);

  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }

  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const digits = num + denom;
      // Up to 15 digits a double holds the value exactly, and converts faster than a string.
      const parsed = digits.length <= 15 ? BigInt(Number(digits)) : BigInt(digits);
      const v = parsed * mantissa;
      if (inInt64(v)) {
        const text = parsedTextIsCanonical(format, exponent, scale, digits, parsed) ? str : undefined;
        return new Quantity(positive ? v : -v, scale, false, format, text);
      }
    }
  }

  let [unscaled, exp] = parseDecimal(value);
  if (base === 10) exp += exponent;
  else unscaled *= 1n << BigInt(exponent);
  const negative = unscaled < 0n;
  if (negative) unscaled = -unscaled;
  if (unscaled !== 0n) [unscaled, exp] = roundUpToNano(unscaled, exp);
  if (format === 'BinarySI' && compareDecimal(unscaled, exp, INT64_MAX, 0) > 0) {
    [unscaled, exp] = [INT64_MAX, 0];
  }
  if (format === 'BinarySI' && compareDecimal(unscaled, exp, 1n, 0) < 0 && unscaled > 0n) format = 'DecimalSI';
  return new Quantity(negative ? -unscaled : unscaled, exp, true, format);
}

/** ParseQuantity's test for reusing the input as the String() form (the fast path only). */
function parsedTextIsCanonical(format: QuantityFormat, exponent: number, scale: number, digits: string, parsed: bigint): boolean {
  if (format === 'BinarySI') return exponent % 10 === 0 && (parsed & 7n) !== 0n;
  return scale % 3 === 0 && !digits.endsWith('000') && digits[0] !== '0';
}

/** inf.Dec.Round(x, 9, RoundUp) for positive x: the result always has exponent -9. */
function roundUpToNano(unscaled: bigint, exp: number): [bigint, number] {
  if (exp >= NANO) return [unscaled * pow10(exp - NANO), NANO];
  const drop = NANO - exp;
  if (drop > digitCount(unscaled)) return [1n, NANO]; // below 10^-9: rounds up to 1n
  const unit = pow10(drop);
  const q = unscaled / unit;
  return [unscaled % unit === 0n ? q : q + 1n, NANO];
}
