/**
 * Go's float64 text forms where Kyverno's behaviour depends on them: strconv.FormatFloat with
 * precision -1 (`%v` is 'g'; 'E' in validate patterns; 'f' with float32 precision in the regex and
 * pattern functions; encoding/json numbers) and strconv.ParseFloat.
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

function exponent({ digits, point }: Digits, letter = 'e'): string {
  const exp = point - 1;
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const sign = exp < 0 ? '-' : '+';
  const abs = Math.abs(exp);
  return `${mant}${letter}${sign}${abs < 10 ? '0' : ''}${abs}`;
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

/** strconv.FormatFloat(x, 'E', -1, 64): `1.5E+00`. */
export function formatFloatE(x: number): string {
  const s = special(x);
  if (s) return s;
  return (negative(x) ? '-' : '') + exponent(shortestDigits(x), 'E');
}

/** A float64 as Go's encoding/json writes it (same thresholds as JavaScript, but "-0" for -0). */
export function goJsonNumber(x: number): string {
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

// ---- strconv.ParseFloat(s, 64) ----------------------------------------------------------------------

/** Digits with single underscores between them, as Go's number literals allow. */
const DEC = '\\d+(?:_\\d+)*';
const HEX = '[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*';
const DECIMAL_FLOAT = new RegExp(`^[+-]?(?:${DEC}(?:\\.(?:${DEC})?)?|\\.${DEC})(?:[eE][+-]?${DEC})?$`);
/** A hexadecimal mantissa needs a `p` exponent; one underscore may follow the `0x` prefix. */
const HEX_FLOAT = new RegExp(`^([+-]?)0[xX](?:_?(${HEX})(?:\\.(${HEX})?)?|\\.(${HEX}))[pP]([+-]?${DEC})$`);
const SPECIAL = /^(?:([+-]?)inf(?:inity)?|nan)$/i;

/**
 * strconv.ParseFloat(text, 64): decimal and hexadecimal forms, `_` digit separators, `inf`,
 * `infinity` and `nan` in any case. Undefined where Go reports an error: a syntax error, or a value
 * beyond the float64 range (Go's ErrRange; underflow to zero is not an error).
 */
export function parseFloat64(text: string): number | undefined {
  if (DECIMAL_FLOAT.test(text)) {
    // JavaScript's decimal conversion is correctly rounded, as Go's is.
    const x = Number(text.includes('_') ? text.replaceAll('_', '') : text);
    return Number.isFinite(x) ? x : undefined;
  }
  const hex = HEX_FLOAT.exec(text);
  if (hex) {
    const fraction = (hex[3] ?? hex[4] ?? '').replaceAll('_', '');
    return hexFloat(hex[1] === '-', (hex[2] ?? '').replaceAll('_', '') + fraction, fraction.length, hex[5]);
  }
  const special = SPECIAL.exec(text);
  if (special) return special[0].toLowerCase().endsWith('nan') ? NaN : special[1] === '-' ? -Infinity : Infinity;
  return undefined;
}

/** ±(hexDigits / 16^fractionDigits) × 2^exponent, rounded to nearest even like Go. */
function hexFloat(negativeSign: boolean, hexDigits: string, fractionDigits: number, exponentText: string): number | undefined {
  const mantissa = BigInt(`0x${hexDigits}`);
  const signed = (x: number) => (negativeSign ? -x : x);
  if (mantissa === 0n) return signed(0);
  // Exponents far outside the float64 range only decide between 0 and overflow.
  const exp = Math.max(-1e5, Math.min(1e5, Number(exponentText.replaceAll('_', '')))) - 4 * fractionDigits;
  const bits = mantissa.toString(2).length;
  const top = bits + exp; // the value lies in [2^(top-1), 2^top)
  if (top > 1024) return undefined;
  // Bits the result can keep: 53, fewer for subnormals (the smallest step is 2^-1074).
  const keep = Math.min(53, top + 1074);
  if (keep <= 0) {
    // Under 2^-1074 (the smallest subnormal): above its half rounds up to it; the exact half (a power
    // of two) and anything smaller round to zero.
    return signed(keep === 0 && mantissa !== 1n << BigInt(bits - 1) ? 2 ** -1074 : 0);
  }
  let kept = mantissa;
  let shift = bits - keep;
  if (shift > 0) {
    const s = BigInt(shift);
    kept = mantissa >> s;
    const rest = mantissa & ((1n << s) - 1n);
    const half = 1n << (s - 1n);
    if (rest > half || (rest === half && (kept & 1n) === 1n)) kept += 1n;
  } else {
    shift = 0;
  }
  const e = exp + shift;
  // Two steps, so that neither power of two leaves the float64 range on its own.
  const x = Number(kept) * 2 ** Math.trunc(e / 2) * 2 ** (e - Math.trunc(e / 2));
  return Number.isFinite(x) ? signed(x) : undefined;
}
