/** Go's string order (`<`, strings.Compare, sorted map keys): UTF-8 byte order, i.e. code point order. */

/** -1, 0 or 1; unlike JavaScript's `<`, astral characters sort after U+E000–U+FFFF as in Go. */
export function compareStrings(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) {
      // A surrogate starts a code point above U+FFFF, so it sorts after any other UTF-16 unit.
      const sa = ca >= 0xd800 && ca <= 0xdfff;
      const sb = cb >= 0xd800 && cb <= 0xdfff;
      if (sa !== sb) return sa ? 1 : -1;
      return ca < cb ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : 1;
}
