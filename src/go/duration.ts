/**
 * Go's time.Duration: int64 nanoseconds (as bigint), time.ParseDuration with Go's error messages, and
 * Duration.String() / Seconds().
 */
import { wrap64 } from './int64.js';
import { timeQuote } from './quote.js';

const NANOSECOND = 1n;
const MICROSECOND = 1000n;
const MILLISECOND = 1000_000n;
export const SECOND = 1000_000_000n;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;
const MAX = (1n << 63n) - 1n;

export class DurationError extends Error {}

const UNITS: Record<string, bigint> = {
  ns: NANOSECOND,
  us: MICROSECOND,
  'µs': MICROSECOND, // U+00B5
  'μs': MICROSECOND, // U+03BC
  ms: MILLISECOND,
  s: SECOND,
  m: MINUTE,
  h: HOUR,
};

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** Why a text is not a duration (built only when a message is wanted). */
type Failure = { readonly unknownUnit?: string; readonly missingUnit?: true };
const INVALID: Failure = {};
const MISSING_UNIT: Failure = { missingUnit: true };

/** time.ParseDuration. Throws DurationError with Go's message. */
export function parseDuration(text: string): bigint {
  const d = scan(text);
  if (typeof d === 'bigint') return d;
  const quoted = timeQuote(text);
  if (d.missingUnit) throw new DurationError(`time: missing unit in duration ${quoted}`);
  if (d.unknownUnit !== undefined) throw new DurationError(`time: unknown unit ${timeQuote(d.unknownUnit)} in duration ${quoted}`);
  throw new DurationError(`time: invalid duration ${quoted}`);
}

/** time.ParseDuration without the message: undefined where Go reports an error. */
export function tryParseDuration(text: string): bigint | undefined {
  const d = scan(text);
  return typeof d === 'bigint' ? d : undefined;
}

/** The duration, or why Go refuses the text. */
function scan(orig: string): bigint | Failure {
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return INVALID;
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) return INVALID;
    let i = 0;
    let v = 0n;
    while (isDigit(s[i])) {
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > 1n << 63n) return INVALID;
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(s[j])) {
        if (!overflow) {
          const next = f * 10n + BigInt(s.charCodeAt(j) - 48);
          if (next > 1n << 63n) overflow = true;
          else {
            f = next;
            scale *= 10;
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return INVALID;
    let u = 0;
    while (u < s.length && !(s[u] === '.' || isDigit(s[u]))) u++;
    if (u === 0) return MISSING_UNIT;
    const unitName = s.slice(0, u);
    s = s.slice(u);
    // Own units only: `1constructor` names no unit (an inherited member is no bigint).
    const unit = Object.hasOwn(UNITS, unitName) ? UNITS[unitName] : undefined;
    if (unit === undefined) return { unknownUnit: unitName };
    if (v > (1n << 63n) / unit) return INVALID;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > 1n << 63n) return INVALID;
    }
    d += v;
    if (d > 1n << 63n) return INVALID;
  }
  if (neg) return wrap64(-d);
  if (d > MAX) return INVALID;
  return d;
}

function frac(v: bigint, prec: number): [string, bigint] {
  let out = '';
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) out = digit.toString() + out;
    v /= 10n;
  }
  return [print ? '.' + out : '', v];
}

/** Duration.String(): "1h2m3.5s", "1.5µs", "0s". */
export function formatDuration(d: bigint): string {
  const neg = d < 0n;
  let u = neg ? -d : d; // -MIN is representable as bigint, as Go's uint64 negation
  let out: string;
  if (u < SECOND) {
    if (u === 0n) return '0s';
    let prec: number;
    let unit: string;
    if (u < MICROSECOND) {
      prec = 0;
      unit = 'ns';
    } else if (u < MILLISECOND) {
      prec = 3;
      unit = 'µs';
    } else {
      prec = 6;
      unit = 'ms';
    }
    const [f, rest] = frac(u, prec);
    out = `${rest}${f}${unit}`;
  } else {
    const [f, secs] = frac(u, 9);
    u = secs;
    out = `${u % 60n}${f}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? '-' + out : out;
}

/** Duration.Seconds(). */
export function durationSeconds(d: bigint): number {
  const sec = d / SECOND;
  const nsec = d % SECOND;
  return Number(sec) + Number(nsec) / 1e9;
}
