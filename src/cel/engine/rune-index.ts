/**
 * Rune (code point) counts and indices against UTF-16 code unit indices: CEL strings are sequences of
 * code points, and cel-go's string functions count runes. A text is described by where its surrogate
 * pairs start; a lone surrogate is a rune of its own, as Array.from reads it.
 *
 * A text without surrogates is told by one native scan (none at all for a one-byte string). The
 * description of the last long text is kept: a CEL loop calls size/charAt/substring/indexOf on the same
 * text over and over, and each call would otherwise scan or walk the whole text again (a 1 MB text with
 * one emoji and a loop of 2,000 `size()` calls: 10 s; one with a '€': a scan per call).
 */

export const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
export const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

const SURROGATE = /[\ud800-\udfff]/;
const NO_PAIRS: Int32Array = new Int32Array(0);
/** Below this many code units a text is read again rather than kept. */
const KEPT_FROM = 64;

let keptText: string | undefined;
let keptPairs: Int32Array = NO_PAIRS;

/** The code unit offsets where the surrogate pairs of `s` start, in order. */
function pairStarts(s: string): Int32Array {
  const starts: number[] = [];
  for (let i = 0; i + 1 < s.length; i++) {
    if (isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1))) starts.push(i++);
  }
  return Int32Array.from(starts);
}

function pairsOf(s: string): Int32Array {
  if (s === keptText) return keptPairs;
  const pairs = s.length < 2 || !SURROGATE.test(s) ? NO_PAIRS : pairStarts(s);
  if (s.length >= KEPT_FROM) {
    keptText = s;
    keptPairs = pairs;
  }
  return pairs;
}

/** How many k in [0, n) have below(k) true, for a predicate true then false along k. */
function countWhile(n: number, below: (k: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The number of runes of `s`. */
export function runeCount(s: string): number {
  return s.length - pairsOf(s).length;
}

/** The rune index of code unit `unit` of `s`, a boundary between runes (or its length). */
export function runeIndexAt(s: string, unit: number): number {
  const pairs = pairsOf(s);
  return unit - countWhile(pairs.length, (k) => pairs[k] < unit);
}

/** The code unit index where rune `rune` of `s` starts (`s.length` from the last on). */
export function unitIndexOf(s: string, rune: number): number {
  const pairs = pairsOf(s);
  // Pair k starts at rune pairs[k] - k; each pair before the rune adds a code unit.
  return Math.min(s.length, rune + countWhile(pairs.length, (k) => pairs[k] - k < rune));
}
