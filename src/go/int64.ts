/**
 * Go's int64: wrap-around arithmetic, float64 → int64 conversion, strconv.ParseInt(s, 10, 64) and
 * strconv.ParseUint(s, 10, 64).
 */

const MIN = -(1n << 63n);
const MAX = (1n << 63n) - 1n;
const DECIMAL_INTEGER = /^[+-]?\d+$/;

/** Wraps like Go's int64 arithmetic. */
export const wrap64 = (v: bigint): bigint => BigInt.asIntN(64, v);

/** Go's float64 → int64 conversion on amd64: truncation; NaN and out of range give the minimum. */
export function floatToInt64(x: number): bigint {
  const t = Math.trunc(x);
  if (!(t >= -(2 ** 63) && t < 2 ** 63)) return MIN;
  return BigInt(t);
}

/**
 * Whether decimal digits (after an optional sign) hold more than 20 significant digits: more than any
 * 64-bit integer has, so the text is out of range without being read. V8 reads a decimal BigInt in
 * superlinear time (3,000,000 digits: 1.5 s in one call the review deadline cannot interrupt), where Go's
 * strconv stops at the overflow; callers check this before BigInt(text).
 */
export function pastInt64Digits(text: string): boolean {
  if (text.length <= 20) return false;
  let i = text[0] === '+' || text[0] === '-' ? 1 : 0;
  while (i < text.length && text.charCodeAt(i) === 0x30) i++;
  return text.length - i > 20;
}

/** strconv.ParseInt(text, 10, 64), or undefined where Go reports a syntax or range error. */
export function parseInt64(text: string): bigint | undefined {
  if (!DECIMAL_INTEGER.test(text) || pastInt64Digits(text)) return undefined;
  const v = BigInt(text);
  return v < MIN || v > MAX ? undefined : v;
}

const MAX_U64 = (1n << 64n) - 1n;

/** strconv.ParseUint(text, 10, 64): digits only (no sign), or undefined where Go reports an error. */
export function parseUint64(text: string): bigint | undefined {
  if (!/^\d+$/.test(text) || pastInt64Digits(text)) return undefined;
  const v = BigInt(text);
  return v > MAX_U64 ? undefined : v;
}
