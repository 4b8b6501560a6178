/** Go's string ordering (`<`, strings.Compare, sorted map keys): UTF-8 byte order, i.e. code point order. */

/** -1, 0 or 1; unlike JavaScript's `<`, astral characters sort after U+E000–U+FFFF as in Go. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const cx = a.codePointAt(i)!;
      const cy = b.codePointAt(i)!;
      return cx < cy ? -1 : cx > cy ? 1 : 0;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}
