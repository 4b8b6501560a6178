/**
 * The length of `s` in UTF-8 bytes, counted without encoding it (CEL's string costs, the sources' size
 * bounds, a body held as text against the body limit): what TextEncoder writes, a lone surrogate as
 * U+FFFD (3 bytes). Only a high surrogate followed by a low one is a pair (4 bytes).
 */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * True when decoding the UTF-8 of `text` (as a Web body's text() does) gives `text` back: no lone
 * surrogate, and no leading byte-order mark, which the decoder drops.
 */
export function decodesToItself(text: string): boolean {
  // isWellFormed: ES2024, in Node 20 and later.
  return (text as string & { isWellFormed(): boolean }).isWellFormed() && text.charCodeAt(0) !== 0xfeff;
}
