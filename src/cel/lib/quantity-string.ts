/**
 * The canonical text of a Kubernetes quantity, as apimachinery's `Quantity.String()` /
 * `CanonicalizeBytes` writes it: no fractional digits, the largest exponent (suffix) that loses no
 * precision, in the quantity's own format:
 *
 *   DecimalSI        1.5 → "1500m", 2000 → "2k", 1e21 → "1" (no suffix beyond E: apimachinery's quirk)
 *   DecimalExponent  1.5e3 → "1500", 1e3 → "1e3"
 *   BinarySI         1.5Gi → "1536Mi"; values in (-1024, 1024) and non-integers fall back to DecimalSI
 */

import type { QuantityFormat } from './quantity-value.js';

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

const abs = (v: bigint) => (v < 0n ? -v : v);

/** The canonical text of mantissa × 10^exponent in `format`. */
export function canonicalQuantity(mantissa: bigint, exponent: number, format: QuantityFormat): string {
  if (mantissa === 0n) return '0';
  if (format === 'BinarySI') {
    const integer = binaryInteger(mantissa, exponent);
    if (integer !== undefined) return base1024(integer);
    format = 'DecimalSI';
  }
  const [number, exp] = base1000(mantissa, exponent);
  if (format === 'DecimalSI') return number + (DECIMAL_SI_SUFFIXES.get(exp) ?? '');
  return exp === 0 ? number : `${number}e${exp}`;
}

/**
 * The quantity as an integer when BinarySI can print it: |value| >= 1024 and no fractional part
 * (apimachinery rounds to an integer and keeps the binary form only when that is exact).
 */
function binaryInteger(mantissa: bigint, exponent: number): bigint | undefined {
  let integer: bigint;
  if (exponent >= 0) integer = mantissa * 10n ** BigInt(exponent);
  else {
    const unit = 10n ** BigInt(-exponent);
    if (mantissa % unit !== 0n) return undefined;
    integer = mantissa / unit;
  }
  return abs(integer) < 1024n ? undefined : integer;
}

/** Mantissa digits and a base-10 exponent that is a multiple of 3, trailing zeros moved into it. */
function base1000(mantissa: bigint, exponent: number): [string, number] {
  let m = mantissa;
  let e = exponent;
  while (abs(m) >= 10n && m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  // Lower the exponent to the multiple of 3 at or below it (Go's % truncates; this floors).
  const r = ((e % 3) + 3) % 3;
  if (r > 0) {
    m *= 10n ** BigInt(r);
    e -= r;
  }
  return [m.toString(), e];
}

/** An integer as mantissa and binary suffix: 1536·1024² → "1536Mi". */
function base1024(integer: bigint): string {
  let m = integer;
  let times = 0;
  while (abs(m) >= 1024n && m % 1024n === 0n) {
    m /= 1024n;
    times++;
  }
  return m.toString() + (BINARY_SI_SUFFIXES[times] ?? '');
}
