/**
 * Go `time.ParseDuration` (`1h30m`, `-1.5s`, `300ms`): the syntax Kyverno's operators accept for
 * durations. The value is returned in nanoseconds as a JS number (exact up to ~104 days; Kyverno only
 * compares durations, so the last nanosecond of a longer one does not matter).
 */

const UNIT_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3, // U+00B5 micro sign
  'μs': 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};
const PART = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;

/** Nanoseconds, or undefined when `text` is not a Go duration. */
export function parseDuration(text: string): number | undefined {
  let i = 0;
  let sign = 1;
  if (text[0] === '-' || text[0] === '+') {
    sign = text[0] === '-' ? -1 : 1;
    i = 1;
  }
  const body = text.slice(i);
  if (body === '0') return 0;
  if (body === '') return undefined;
  let total = 0;
  let pos = 0;
  while (pos < body.length) {
    PART.lastIndex = pos;
    const m = PART.exec(body);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) return undefined;
    const value = Number(`${m[1] || '0'}.${m[2] ?? '0'}`);
    total += value * UNIT_NS[m[3]];
    pos = PART.lastIndex;
  }
  return sign * total;
}
