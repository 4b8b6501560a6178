/**
 * Substring search by code points (cel-go's indexOf/lastIndexOf count runes) in time linear in the
 * text: cel-go compares rune by rune at every position, which is text × substring steps, and a review
 * can give both (40,000 characters against 20,000: 0.7–2.3 s in one call the review's deadline cannot
 * interrupt, charged one traversal of the text).
 *
 * The search runs on UTF-16 code units; a match counts when it starts and ends between code points
 * (not inside a surrogate pair), which is exactly a match of the substring's runes. Lone surrogates
 * are runes of their own, as Array.from reads them.
 */

import { isHigh, isLow, runeIndexAt, unitIndexOf } from '../engine/rune-index.js';

/** Is code unit index `i` of `s` between two code points (or at an end)? */
function atBoundary(s: string, i: number): boolean {
  return i === 0 || i >= s.length || !(isHigh(s.charCodeAt(i - 1)) && isLow(s.charCodeAt(i)));
}

/**
 * Can a code-unit match of `sub` fall inside a surrogate pair of the text? Only when it starts with a low
 * surrogate or ends with a high one; otherwise every match found on code units is a match of runes.
 */
function mayCutPairs(sub: string): boolean {
  return isLow(sub.charCodeAt(0)) || isHigh(sub.charCodeAt(sub.length - 1));
}

/** The failure function of Knuth–Morris–Pratt over `pattern(k)`, k < m. */
function failures(m: number, pattern: (k: number) => number): Int32Array {
  const fail = new Int32Array(m);
  for (let k = 1, q = 0; k < m; k++) {
    while (q > 0 && pattern(k) !== pattern(q)) q = fail[q - 1];
    if (pattern(k) === pattern(q)) q++;
    fail[k] = q;
  }
  return fail;
}

/**
 * The first rune index at or after rune `from` where the runes of `sub` (not empty) start in `s`, or -1.
 * V8's indexOf is linear here (Boyer–Moore); a substring that may cut surrogate pairs is scanned with
 * Knuth–Morris–Pratt, matches inside a pair skipped.
 */
export function runeIndexOf(s: string, sub: string, from: number): number {
  const start = unitIndexOf(s, from);
  if (!mayCutPairs(sub)) {
    const at = s.indexOf(sub, start);
    return at < 0 ? -1 : runeIndexAt(s, at);
  }
  const m = sub.length;
  const fail = failures(m, (k) => sub.charCodeAt(k));
  for (let i = start, q = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    while (q > 0 && c !== sub.charCodeAt(q)) q = fail[q - 1];
    if (c === sub.charCodeAt(q)) q++;
    if (q === m) {
      const at = i - m + 1;
      if (atBoundary(s, at) && atBoundary(s, i + 1)) return runeIndexAt(s, at);
      q = fail[q - 1];
    }
  }
  return -1;
}

/**
 * The last rune index at or before rune `from` where the runes of `sub` (not empty) start in `s`, or -1.
 * V8's lastIndexOf compares at every position (quadratic), so this scans backwards with
 * Knuth–Morris–Pratt over the reversed substring.
 */
export function runeLastIndexOf(s: string, sub: string, from: number): number {
  const m = sub.length;
  const last = Math.min(unitIndexOf(s, from), s.length - m);
  if (last < 0) return -1;
  const reversed = (k: number): number => sub.charCodeAt(m - 1 - k);
  const fail = failures(m, reversed);
  for (let i = last + m - 1, q = 0; i >= 0; i--) {
    const c = s.charCodeAt(i);
    while (q > 0 && c !== reversed(q)) q = fail[q - 1];
    if (c === reversed(q)) q++;
    if (q === m) {
      if (atBoundary(s, i) && atBoundary(s, i + m)) return runeIndexAt(s, i);
      q = fail[q - 1];
    }
  }
  return -1;
}
