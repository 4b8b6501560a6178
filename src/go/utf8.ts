/** Go's unicode/utf8 decoding rules on bytes. */

/**
 * The length of the valid UTF-8 sequence at `i`, as utf8.DecodeRune accepts it, or 0 when the byte there
 * starts none: a stray continuation byte, an overlong form, a UTF-16 surrogate, a code point past
 * U+10FFFF, or a sequence cut short by the end.
 */
export function utf8SequenceLength(b: Uint8Array, i: number): number {
  const b0 = b[i];
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const ok1 = b0 === 0xe0 ? cont(1, 0xa0) : b0 === 0xed ? cont(1, 0x80, 0x9f) : cont(1);
    return ok1 && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const ok1 = b0 === 0xf0 ? cont(1, 0x90) : b0 === 0xf4 ? cont(1, 0x80, 0x8f) : cont(1);
    return ok1 && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}
