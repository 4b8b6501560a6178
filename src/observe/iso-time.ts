/**
 * The time as `Date.prototype.toISOString` writes it (`2026-12-03T15:47:01.042Z`), for the log line of
 * every request: `toISOString` costs about a microsecond, ten times `Date.now()`, so the text up to the
 * seconds is made once per second and only the milliseconds are written per call.
 */
let second = Number.NaN;
/** `YYYY-MM-DDTHH:MM:SS.` of `second` (or `±YYYYYY-…` beyond year 9999, as toISOString writes it). */
let secondText = '';
/** The largest distance from the epoch a Date holds, in milliseconds (ECMAScript's time value range). */
const MAX_TIME = 8.64e15;

export function isoTime(ms: number = Date.now()): string {
  // Fractions, NaN, ±Infinity and times out of range: Date's own rules (and its RangeError).
  if (!Number.isInteger(ms) || Math.abs(ms) > MAX_TIME) return new Date(ms).toISOString();
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    secondText = new Date(s * 1000).toISOString().slice(0, -4); // drop "000Z"
    second = s;
  }
  const milli = ms - s * 1000;
  return secondText + (milli < 10 ? '00' : milli < 100 ? '0' : '') + milli + 'Z';
}
