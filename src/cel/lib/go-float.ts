/**
 * Go's float64 formatting (strconv / fmt) in exact arithmetic: `%.Nf`, `%.Ne` and the shortest
 * round-trip form `FormatFloat(x, 'f', -1, 64)`. Go rounds the exact binary value half-to-even,
 * which JS's toFixed does not, so the digits are computed with BigInt.
 */

/** The exact value of a finite, non-negative double as digits × 10^-scale. */
function exactDecimal(x: number): { digits: bigint; scale: number } {
  if (x === 0) return { digits: 0n, scale: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biasedExp = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (biasedExp === 0) exp = -1074;
  else {
    mantissa |= 1n << 52n;
    exp = biasedExp - 1075;
  }
  if (exp >= 0) return { digits: mantissa << BigInt(exp), scale: 0 };
  // m / 2^k == m * 5^k / 10^k
  return { digits: mantissa * 5n ** BigInt(-exp), scale: -exp };
}

/** digits / 10^drop rounded half-to-even. */
function roundHalfEven(digits: bigint, drop: number): bigint {
  if (drop <= 0) return digits * 10n ** BigInt(-drop);
  const unit = 10n ** BigInt(drop);
  const q = digits / unit;
  const r2 = (digits % unit) * 2n;
  if (r2 > unit || (r2 === unit && q % 2n === 1n)) return q + 1n;
  return q;
}

function sign(x: number): string {
  return x < 0 || Object.is(x, -0) ? '-' : '';
}

/** Go's `fmt.Sprintf("%.<precision>f", x)` for finite x. */
export function formatFixed(x: number, precision: number): string {
  const { digits, scale } = exactDecimal(Math.abs(x));
  const q = roundHalfEven(digits, scale - precision).toString();
  if (precision === 0) return sign(x) + q;
  const padded = q.padStart(precision + 1, '0');
  return `${sign(x)}${padded.slice(0, -precision)}.${padded.slice(-precision)}`;
}

/** Go's `fmt.Sprintf("%.<precision>e", x)` for finite x: d.ddde±XX. */
export function formatScientific(x: number, precision: number): string {
  const { digits, scale } = exactDecimal(Math.abs(x));
  if (digits === 0n) {
    return `${sign(x)}0${precision > 0 ? '.' + '0'.repeat(precision) : ''}e+00`;
  }
  const len = digits.toString().length;
  // Keep precision+1 significant digits.
  let q = roundHalfEven(digits, len - (precision + 1));
  let exponent = len - 1 - scale;
  if (q.toString().length > precision + 1) {
    q /= 10n;
    exponent++;
  }
  const s = q.toString();
  const mant = precision > 0 ? `${s[0]}.${s.slice(1)}` : s;
  const e = Math.abs(exponent).toString().padStart(2, '0');
  return `${sign(x)}${mant}e${exponent < 0 ? '-' : '+'}${e}`;
}

/** Go's `strconv.FormatFloat(x, 'f', -1, 64)`: shortest round-trip digits, never an exponent. */
export function formatShortest(x: number): string {
  if (x === 0) return sign(x) + '0';
  // toExponential() without an argument yields the shortest digits that round-trip.
  const [mant, expText] = Math.abs(x).toExponential().split('e');
  const digits = mant.replace('.', '');
  const exp = Number(expText);
  let out: string;
  if (exp < 0) out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  else if (exp + 1 >= digits.length) out = digits + '0'.repeat(exp + 1 - digits.length);
  else out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  return sign(x) + out;
}
