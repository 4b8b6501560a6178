/**
 * Go's strings.TrimSpace, whose unicode.IsSpace is not JavaScript's trim(): U+0085 (NEL) is a space in
 * Go and U+FEFF (BOM) is not, the other way round in JavaScript.
 */

/** unicode.IsSpace (every such rune is one UTF-16 code unit). */
export function isGoSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** strings.TrimSpace, by scans from both ends (linear in a long run of spaces, where a RegExp is not). */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}
