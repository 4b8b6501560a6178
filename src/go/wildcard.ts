/**
 * Kyverno's `wildcard.Match` (ext/wildcard on IGLOU-EU/go-wildcard v1, minio's matcher): `*` matches
 * any run of characters (also none), `?` exactly one character, everything else (`.` included) is
 * literal; characters are runes, not bytes. Kyverno uses this one function everywhere: names,
 * namespaces, annotations, kinds, `Equals` values, the `In` operator families, validate patterns and
 * the `pattern_match` JMESPath function.
 */
import type { ReviewGuard } from '../guard/index.js';

export function hasWildcard(text: string): boolean {
  return text.includes('*') || text.includes('?');
}

/** `guard` is ticked at every backtrack (a pattern of many `*` against long text is quadratic). */
export function wildcardMatch(pattern: string, text: string, guard?: ReviewGuard): boolean {
  if (pattern === '*') return true;
  if (!hasWildcard(pattern)) return pattern === text;
  // Go compares runes. Without surrogates, code units are runes: `?` is one character either way and
  // a literal (never a surrogate half) cannot match inside a pair, so the strings are walked as they
  // are; otherwise split into code points, which keeps `?` one character for any text.
  if (!SURROGATE.test(pattern) && !SURROGATE.test(text)) return matchRunes(pattern, text, guard);
  return matchRunes(Array.from(pattern), Array.from(text), guard);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** The match over runes, given as the characters of a string without surrogates or as code points. */
function matchRunes(p: string | readonly string[], t: string | readonly string[], guard: ReviewGuard | undefined): boolean {
  let pi = 0;
  let ti = 0;
  let starP = -1;
  let starT = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === t[ti]))) {
      pi++;
      ti++;
    } else if (pi < p.length && p[pi] === '*') {
      starP = pi++;
      starT = ti;
    } else if (starP >= 0) {
      guard?.tick();
      pi = starP + 1;
      ti = ++starT;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}
