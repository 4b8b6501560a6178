/**
 * Kubernetes resource quantities (`100Mi`, `0.5`, `250m`, `1e3`), as `resource.ParseQuantity` reads
 * them, kept as exact rationals so that comparisons never suffer from float rounding.
 */

export interface Quantity {
  /** numerator / denominator, denominator > 0 */
  readonly num: bigint;
  readonly den: bigint;
}

const QUANTITY = /^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
/** Exponents beyond this are not quantities anyone writes; refusing them bounds the BigInt work. */
const MAX_EXPONENT = 400;

/** The quantity `text` denotes, or undefined when it is not one. */
export function parseQuantity(text: string): Quantity | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, sign, number, suffix = ''] = m;
  const dot = number.indexOf('.');
  const digits = dot < 0 ? number : number.slice(0, dot) + number.slice(dot + 1);
  const fraction = dot < 0 ? 0 : number.length - dot - 1;
  let num = BigInt(digits === '' ? '0' : digits) * (sign === '-' ? -1n : 1n);
  let den = 10n ** BigInt(fraction);
  let exp10 = 0;
  if (suffix in BINARY) {
    num *= 2n ** BigInt(BINARY[suffix]);
  } else if (suffix in DECIMAL) {
    exp10 = DECIMAL[suffix];
  } else if (suffix !== '') {
    exp10 = Number(suffix.slice(1));
    if (!Number.isFinite(exp10) || Math.abs(exp10) > MAX_EXPONENT) return undefined;
  }
  if (exp10 > 0) num *= 10n ** BigInt(exp10);
  else if (exp10 < 0) den *= 10n ** BigInt(-exp10);
  return { num, den };
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}
