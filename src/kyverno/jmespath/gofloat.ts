/**
 * Go's float formatting (strconv.FormatFloat with precision -1) for the places where Kyverno's output
 * depends on it: `%v` in messages ('g', 64-bit), number-to-string in regex/pattern functions
 * ('f', 32-bit) and encoding/json numbers.
 */

interface Digits {
  digits: string; // significant digits, no leading or trailing zeros ("0" for zero)
  point: number; // decimal point position: value = 0.digits × 10^point
}

function shortestDigits(x: number): Digits {
  if (x === 0) return { digits: '0', point: 1 };
  // toExponential() without an argument gives the shortest digits that round-trip to x.
  const [mant, exp] = Math.abs(x).toExponential().split('e');
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  return { digits, point: Number(exp) + 1 };
}

/** Shortest digits that round-trip through float32 (strconv with bitSize 32). */
function shortestDigits32(x: number): Digits {
  const f = Math.fround(x);
  if (f === 0) return { digits: '0', point: 1 };
  const a = Math.abs(f);
  for (let p = 1; p <= 9; p++) {
    const s = a.toExponential(p - 1);
    if (Math.fround(Number(s)) === a) {
      const [mant, exp] = s.split('e');
      const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
      return { digits, point: Number(exp) + 1 };
    }
  }
  return shortestDigits(a);
}

function fixed({ digits, point }: Digits): string {
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

function exponent({ digits, point }: Digits): string {
  const exp = point - 1;
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const sign = exp < 0 ? '-' : '+';
  const abs = Math.abs(exp);
  return `${mant}e${sign}${abs < 10 ? '0' : ''}${abs}`;
}

function special(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  return undefined;
}

const negative = (x: number) => x < 0 || Object.is(x, -0);

/** strconv.FormatFloat(x, 'g', -1, 64), which is also fmt's `%v` for float64. */
export function formatFloatG(x: number): string {
  const s = special(x);
  if (s) return s;
  const d = shortestDigits(x);
  const exp = d.point - 1;
  // The shortest form switches to %e when exp < -4 || exp >= 6 (strconv's eprec for shortest).
  const text = exp < -4 || exp >= 6 ? exponent(d) : fixed(d);
  return (negative(x) ? '-' : '') + text;
}

/** strconv.FormatFloat(x, 'f', -1, 32): float32 precision, never an exponent. */
export function formatFloat32F(x: number): string {
  const s = special(Math.fround(x));
  if (s) return s;
  return (negative(x) ? '-' : '') + fixed(shortestDigits32(x));
}

/** strconv.FormatFloat(x, 'f', -1, 64). */
export function formatFloatF(x: number): string {
  const s = special(x);
  if (s) return s;
  return (negative(x) ? '-' : '') + fixed(shortestDigits(x));
}

/** A float64 as Go's encoding/json writes it (same thresholds as JavaScript, but "-0" for -0). */
export function goJsonNumber(x: number): string {
  if (Object.is(x, -0)) return '-0';
  return String(x);
}
