/**
 * Kubernetes resource.Quantity (k8s.io/apimachinery/pkg/api/resource): ParseQuantity with its
 * representation scale (Kyverno's `divide` depends on it), exact comparison and arithmetic, and the
 * canonical String(). A value is unscaled / 10^scale (inf.Dec's convention).
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  unscaled: bigint;
  scale: number;
  format: QuantityFormat;
}

const DEC_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_BY_EXP = new Map(Object.entries(DEC_SUFFIX).map(([k, v]) => [v, k]));
const BIN_BY_EXP = new Map(Object.entries(BIN_SUFFIX).map(([k, v]) => [v, k]));
const MAX_ALLOWED = (1n << 63n) - 1n;
/**
 * Go computes `1e999999999` digit by digit (for minutes); decimal exponents beyond this bound are
 * refused instead, as if they did not parse. No quantity anyone writes comes near it.
 */
const MAX_EXPONENT = 1000;
const pow10 = (n: number): bigint => 10n ** BigInt(n);

const ERR_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const ERR_SUFFIX = "unable to parse quantity's suffix";
const ERR_TOO_LARGE = 'quantity exponent out of range';

export class QuantityError extends Error {}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** resource.ParseQuantity. Throws QuantityError with k8s's messages. */
export function parseQuantity(text: string): Quantity {
  const q = scan(text);
  if (typeof q === 'string') throw new QuantityError(q);
  return q;
}

/** resource.ParseQuantity without the message: undefined where k8s reports an error. */
export function tryParseQuantity(text: string): Quantity | undefined {
  const q = scan(text);
  return typeof q === 'string' ? undefined : q;
}

/** The quantity, or k8s's error message. */
function scan(str: string): Quantity | string {
  if (str.length === 0) return ERR_FORMAT;
  if (str === '0') return { unscaled: 0n, scale: 0, format: 'DecimalSI' };
  // parseQuantityString
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  let num = '';
  let denom = '';
  let suffix = '';
  if (pos >= end) {
    num = '0';
  } else {
    let i = pos;
    while (i < end && isDigit(str[i])) i++;
    num = str.slice(pos, i);
    pos = i;
    if (num === '') num = '0';
    if (pos < end && str[pos] === '.') {
      pos++;
      let j = pos;
      while (j < end && isDigit(str[j])) j++;
      denom = str.slice(pos, j);
      pos = j;
    }
    const suffixStart = pos;
    let k = pos;
    while (k < end && 'eEinumkKMGTP'.includes(str[k])) k++;
    pos = k;
    if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
    while (pos < end && isDigit(str[pos])) pos++;
    if (pos < end) return ERR_FORMAT;
    suffix = str.slice(suffixStart, end);
  }
  // interpret the suffix
  let base = 10;
  let exponent = 0;
  let format: QuantityFormat;
  if (Object.prototype.hasOwnProperty.call(DEC_SUFFIX, suffix)) {
    exponent = DEC_SUFFIX[suffix];
    format = 'DecimalSI';
  } else if (Object.prototype.hasOwnProperty.call(BIN_SUFFIX, suffix)) {
    base = 2;
    exponent = BIN_SUFFIX[suffix];
    format = 'BinarySI';
  } else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    // strconv.ParseInt(…, 10, 64), then int32(…), which wraps.
    const parsed = BigInt(suffix.slice(1));
    if (parsed !== BigInt.asIntN(64, parsed)) return ERR_SUFFIX;
    exponent = Number(BigInt.asIntN(32, parsed));
    if (Math.abs(exponent) > MAX_EXPONENT) return ERR_TOO_LARGE;
    format = 'DecimalExponent';
  } else {
    return ERR_SUFFIX;
  }
  const digits = (num + denom).replace(/^0+(?=\d)/, '');
  let unscaled = BigInt(digits === '' ? '0' : digits);
  if (!positive) unscaled = -unscaled;
  // Go keeps the parsed digits as the representation when the value is small enough (fast path).
  const fastDecimal = format !== 'BinarySI' && 18 - (num.length + denom.length) >= 0 && exponent - denom.length >= -9;
  const fastBinary = format === 'BinarySI' && denom.length === 0 && exponent >= 0 && 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 >= 0;
  if (fastDecimal) return { unscaled, scale: denom.length - exponent, format };
  if (fastBinary) {
    const v = unscaled * (1n << BigInt(exponent));
    if (v <= MAX_ALLOWED && v >= -MAX_ALLOWED) return { unscaled: v, scale: 0, format };
  }
  // Slow path: the exact value, rounded up (away from zero) to nano units; only BinarySI values are
  // capped at 2^63-1.
  let scale = denom.length;
  if (base === 10) scale -= exponent;
  else unscaled *= 1n << BigInt(exponent);
  const negative = unscaled < 0n;
  let mag = negative ? -unscaled : unscaled;
  if (mag !== 0n) {
    if (scale > 9) {
      const div = pow10(scale - 9);
      mag = (mag + div - 1n) / div;
    } else {
      mag *= pow10(9 - scale);
    }
    scale = 9;
    if (format === 'BinarySI' && mag > MAX_ALLOWED * pow10(9)) mag = MAX_ALLOWED * pow10(9);
    if (format === 'BinarySI' && mag < pow10(9)) format = 'DecimalSI';
  }
  return { unscaled: negative ? -mag : mag, scale, format };
}

function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.unscaled * pow10(scale - a.scale), b.unscaled * pow10(scale - b.scale), scale];
}

/** Quantity.Cmp: -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isZero(q: Quantity): boolean {
  return q.unscaled === 0n;
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const [x, y, scale] = align(a, b);
  return { unscaled: x + y, scale, format: isZero(a) ? b.format : a.format };
}

export function subQuantities(a: Quantity, b: Quantity): Quantity {
  const [x, y, scale] = align(a, b);
  return { unscaled: x - y, scale, format: isZero(a) ? b.format : a.format };
}

export function mulQuantities(a: Quantity, b: Quantity, format: QuantityFormat): Quantity {
  return { unscaled: a.unscaled * b.unscaled, scale: a.scale + b.scale, format };
}

/** inf.Dec QuoRound(a, b, scale, RoundDown): truncation toward zero at `scale` decimals. */
export function quoRoundDown(a: Quantity, b: Quantity, scale: number, format: QuantityFormat): Quantity {
  // a/b = (ua / 10^sa) / (ub / 10^sb); result unscaled = ua * 10^(scale - sa + sb) / ub
  const shift = scale - a.scale + b.scale;
  let num = a.unscaled;
  let den = b.unscaled;
  if (shift >= 0) num *= pow10(shift);
  else den *= pow10(-shift);
  return { unscaled: num / den, scale, format };
}

/** Quantity.AsApproximateFloat64. */
export function approximateFloat(q: Quantity): number {
  const base = Number(q.unscaled);
  const exponent = -q.scale;
  if (exponent === 0) return base;
  return base * Number(`1e${exponent}`);
}

function stripTens(v: bigint, exponent: number): [bigint, number] {
  if (v === 0n) return [v, exponent];
  while (v % 10n === 0n) {
    v /= 10n;
    exponent++;
  }
  return [v, exponent];
}

/** Quantity.String(): the canonical form. */
export function formatQuantity(q: Quantity): string {
  if (q.unscaled === 0n) return '0';
  let format = q.format;
  let integral: bigint | undefined;
  if (format === 'BinarySI') {
    // values strictly between -1024 and 1024, or not whole numbers, print as DecimalSI
    const abs = q.unscaled < 0n ? -q.unscaled : q.unscaled;
    const below1024 = q.scale >= 0 ? abs < 1024n * pow10(q.scale) : abs * pow10(-q.scale) < 1024n;
    if (below1024) {
      format = 'DecimalSI';
    } else if (q.scale > 0) {
      const d = pow10(q.scale);
      if (q.unscaled % d !== 0n) format = 'DecimalSI';
      else integral = q.unscaled / d;
    } else {
      integral = q.unscaled * pow10(-q.scale);
    }
  }
  if (format === 'BinarySI' && integral !== undefined) {
    let v = integral;
    let exp = 0;
    while (v % 1024n === 0n && v !== 0n) {
      v /= 1024n;
      exp++;
    }
    return `${v}${BIN_BY_EXP.get(exp * 10) ?? ''}`;
  }
  let [mantissa, exponent] = stripTens(q.unscaled, -q.scale);
  while (((exponent % 3) + 3) % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  return `${mantissa}${DEC_BY_EXP.get(exponent) ?? ''}`;
}
