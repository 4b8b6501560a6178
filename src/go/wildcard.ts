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
  // Go compares runes; splitting into code points keeps `?` one character for non-ASCII text too.
  const p = Array.from(pattern);
  const t = Array.from(text);
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
