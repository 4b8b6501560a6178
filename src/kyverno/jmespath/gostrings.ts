/** Go `strings` package behaviours that differ from JavaScript's built-ins (rune-wise, simple case mapping). */

/** unicode.ToUpper / ToLower rune by rune: simple case mapping, no context (no final sigma, no ß → SS). */
function mapRunes(s: string, upper: boolean): string {
  // ASCII fast path.
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return upper ? s.toUpperCase() : s.toLowerCase();
  let out = '';
  for (const ch of s) {
    if (!upper && ch === '\u0130') {
      out += 'i'; // Go: unicode.ToLower('İ') == 'i'
      continue;
    }
    const m = upper ? ch.toUpperCase() : ch.toLowerCase();
    // Keep the rune when the full mapping is not a single rune (Go has no simple mapping then), but for
    // the Greek letters with ypogegrammeni, whose simple uppercase is one rune (ᾀ → ᾈ).
    out += [...m].length === 1 ? m : upper ? greekSimpleUpper(ch) : ch;
  }
  return out;
}

/**
 * unicode.ToUpper of the Greek letters with ypogegrammeni (U+1F80–1FA7 less the capitals, U+1FB3,
 * U+1FC3, U+1FF3): UnicodeData gives each a one-rune uppercase, the titlecase letter (ᾀ → ᾈ, ᾳ → ᾼ),
 * where JavaScript's toUpperCase applies SpecialCasing's two runes (ἈΙ). Any other rune is kept.
 */
function greekSimpleUpper(ch: string): string {
  const c = ch.codePointAt(0)!;
  if ((c >= 0x1f80 && c <= 0x1f87) || (c >= 0x1f90 && c <= 0x1f97) || (c >= 0x1fa0 && c <= 0x1fa7)) return String.fromCodePoint(c + 8);
  if (c === 0x1fb3 || c === 0x1fc3 || c === 0x1ff3) return String.fromCodePoint(c + 9);
  return ch;
}

export const goToUpper = (s: string) => mapRunes(s, true);
export const goToLower = (s: string) => mapRunes(s, false);

/**
 * strings.EqualFold: rune by rune, equal or in the same case-folding orbit (unicode.SimpleFold), which
 * Go builds from Unicode's simple case folding (CaseFolding.txt C and S). JavaScript's RegExp with the
 * `iu` flags canonicalizes by that same folding, so a one-rune pattern tests the orbit: 'K' (Kelvin) is
 * 'k' and 'ẞ' is 'ß', but 'İ' is not 'i' nor 'ı' 'I' (their orbits are themselves), where mapping both
 * sides to upper then lower case made them equal.
 */
export function goEqualFold(a: string, b: string): boolean {
  if (a === b) return true;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const wa = runeWidthAt(a, i);
    const wb = runeWidthAt(b, j);
    const ra = a.slice(i, i + wa);
    const rb = b.slice(j, j + wb);
    i += wa;
    j += wb;
    if (ra === rb) continue;
    const ca = ra.codePointAt(0)!;
    const cb = rb.codePointAt(0)!;
    // Go's fast check: an ASCII pair folds only as upper and lower case of one letter.
    if (ca < 0x80 && cb < 0x80) {
      if ((ca | 0x20) === (cb | 0x20) && (ca | 0x20) >= 0x61 && (ca | 0x20) <= 0x7a) continue;
      return false;
    }
    if (!foldPattern(ra).test(rb)) return false;
  }
  return i === a.length && j === b.length;
}

/** `^rune$` with the `iu` flags, per rune (a bounded cache: the texts come from reviews). */
const foldPatterns = new Map<string, RegExp>();
function foldPattern(rune: string): RegExp {
  let re = foldPatterns.get(rune);
  if (re === undefined) {
    re = new RegExp(`^${rune.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')}$`, 'iu');
    if (foldPatterns.size < 4096) foldPatterns.set(rune, re);
  }
  return re;
}

/** strings.Trim: drops leading and trailing runes that occur in cutset. */
export function goTrim(s: string, cutset: string): string {
  if (s === '' || cutset === '') return s;
  const cut = new Set(cutset);
  // Runes read from both ends only as far as they are cut (a long text is not split into runes).
  let start = 0;
  while (start < s.length) {
    const w = runeWidthAt(s, start);
    if (!cut.has(s.slice(start, start + w))) break;
    start += w;
  }
  let end = s.length;
  while (end > start) {
    const w = runeWidthBefore(s, end);
    if (!cut.has(s.slice(end - w, end))) break;
    end -= w;
  }
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** strings.Split: an empty separator splits into runes. */
export function goSplit(s: string, sep: string): string[] {
  if (sep === '') return [...s];
  return s.split(sep);
}

/** strings.Replace(s, old, new, n): n < 0 replaces all; an empty `old` matches before every rune. */
/** The length of `goReplace(s, old, repl, n)`, without building it (to check it against a bound first). */
export function replacedLength(s: string, old: string, repl: string, n: number): number {
  if (old === repl || n === 0) return s.length;
  let count = 0;
  if (old === '') {
    const runes = runeLength(s) + 1;
    count = n < 0 ? runes : Math.min(n, runes);
  } else {
    for (let j = s.indexOf(old); j >= 0 && (n < 0 || count < n); j = s.indexOf(old, j + old.length)) count++;
  }
  return s.length + count * (repl.length - old.length);
}

function runeLength(s: string): number {
  let count = 0;
  for (const _ of s) count++;
  return count;
}

export function goReplace(s: string, old: string, repl: string, n: number): string {
  if (old === repl || n === 0) return s;
  if (old === '') {
    const runes = [...s];
    const max = n < 0 ? runes.length + 1 : Math.min(n, runes.length + 1);
    let out = '';
    for (let i = 0; i < runes.length; i++) out += (i < max ? repl : '') + runes[i];
    return out + (runes.length < max ? repl : '');
  }
  if (n < 0) return s.split(old).join(repl);
  let out = '';
  let start = 0;
  for (let i = 0; i < n; i++) {
    const j = s.indexOf(old, start);
    if (j < 0) break;
    out += s.slice(start, j) + repl;
    start = j + old.length;
  }
  return out + s.slice(start);
}

/** github.com/aquilax/truncate with CutStrategy: the first `length` runes. */
export function goTruncate(s: string, length: number): string {
  if (length <= 0) return '';
  // Walks `length` runes only: a short prefix of a long text costs the prefix, not the text.
  let i = 0;
  for (let runes = 0; runes < length && i < s.length; runes++) i += runeWidthAt(s, i);
  return i >= s.length ? s : s.slice(0, i);
}

/** UTF-16 units of the rune at `i`: 2 for a surrogate pair, else 1 (a lone surrogate is one rune, as [...s] has it). */
function runeWidthAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

/** UTF-16 units of the rune that ends just before `end`. */
function runeWidthBefore(s: string, end: number): number {
  const c = s.charCodeAt(end - 1);
  return (c & 0xfc00) === 0xdc00 && end >= 2 && (s.charCodeAt(end - 2) & 0xfc00) === 0xd800 ? 2 : 1;
}

/** path/filepath.Join of one element on Linux, i.e. path.Clean (and "" stays ""). */
export function goCleanPath(path: string): string {
  if (path === '') return '';
  const rooted = path[0] === '/';
  const parts: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
      continue;
    }
    parts.push(seg);
  }
  const body = parts.join('/');
  if (rooted) return '/' + body;
  return body === '' ? '.' : body;
}
