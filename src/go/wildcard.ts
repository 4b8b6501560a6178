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

/**
 * `guard` is ticked once per candidate position tried for a `?`-holding piece between two `*` (the only
 * search that is not linear; see matchRunes).
 */
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

type Runes = string | readonly string[];

/**
 * The match over runes, given as the characters of a string without surrogates or as code points. The
 * pattern is its pieces between `*`s: the first must match at the start, the last at the end, and the
 * others in order between them, each at its leftmost place after the one before (taking the leftmost
 * never loses a match, since `*` takes whatever lies between). A literal piece is found with indexOf
 * (linear in practice); only a piece holding `?` is tried position by position. Backtracking over the
 * last `*` instead cost pattern × text steps: a 5,000-character pattern against a 200 KB annotation took
 * seconds, unguarded in match blocks, condition anchors and pattern_match.
 */
function matchRunes(p: Runes, t: Runes, guard: ReviewGuard | undefined): boolean {
  const pieces: Runes[] = [];
  let from = 0;
  for (let i = 0; i <= p.length; i++) {
    if (i < p.length && p[i] !== '*') continue;
    pieces.push(p.slice(from, i));
    from = i + 1;
  }
  if (pieces.length === 1) return t.length === p.length && piecePlaced(p, t, 0);
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const end = t.length - last.length;
  if (end < first.length || !piecePlaced(first, t, 0) || !piecePlaced(last, t, end)) return false;
  let at = first.length;
  for (let k = 1; k < pieces.length - 1; k++) {
    const piece = pieces[k];
    if (piece.length === 0) continue;
    const found = pieceFound(piece, t, at, end, guard);
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

/** Does `piece` (no `*`) match `t` at `at`, `?` standing for any one rune? */
function piecePlaced(piece: Runes, t: Runes, at: number): boolean {
  for (let i = 0; i < piece.length; i++) {
    const c = piece[i];
    if (c !== '?' && c !== t[at + i]) return false;
  }
  return true;
}

/** The leftmost place at or after `from` where `piece` matches and ends by `end`, or -1. */
function pieceFound(piece: Runes, t: Runes, from: number, end: number, guard: ReviewGuard | undefined): number {
  const last = end - piece.length;
  if (last < from) return -1;
  if (typeof piece === 'string' && typeof t === 'string' && piece.length <= SHORT_PIECE && !piece.includes('?')) {
    const found = t.indexOf(piece, from);
    return found >= 0 && found <= last ? found : -1;
  }
  return shiftAnd(piece, t, from, last, guard);
}

/** Pieces up to this long are found with indexOf (at worst text × SHORT_PIECE steps). */
const SHORT_PIECE = 32;

/**
 * The leftmost place in `from`..`last` where `piece` matches, by bit-parallel matching (Shift-And, `?`
 * allowing any rune): bit i of the state says the piece's first i + 1 runes end at the current rune. One
 * pass over the text, piece length / 32 words per rune, whatever the text or the piece.
 */
function shiftAnd(piece: Runes, t: Runes, from: number, last: number, guard: ReviewGuard | undefined): number {
  const length = piece.length;
  const words = (length + 31) >>> 5;
  const any = new Uint32Array(words);
  const masks = new Map<string, Uint32Array>();
  for (let i = 0; i < length; i++) {
    const c = piece[i];
    const bit = 1 << (i & 31);
    if (c === '?') {
      any[i >>> 5] |= bit;
      continue;
    }
    let mask = masks.get(c);
    if (mask === undefined) masks.set(c, (mask = new Uint32Array(words)));
    mask[i >>> 5] |= bit;
  }
  for (const mask of masks.values()) for (let w = 0; w < words; w++) mask[w] |= any[w];
  const state = new Uint32Array(words);
  const top = (length - 1) >>> 5;
  const topBit = 1 << ((length - 1) & 31);
  const stop = last + length - 1;
  for (let j = from; j <= stop; j++) {
    guard?.tick();
    const mask = masks.get(t[j]) ?? any;
    // A match may start at every rune: the carry into bit 0 is 1.
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const word = state[w];
      state[w] = ((word << 1) | carry) & mask[w];
      carry = word >>> 31;
    }
    if ((state[top] & topBit) !== 0) return j - length + 1;
  }
  return -1;
}
