/** Go's unicode/utf8 decoding rules on bytes. */

/**
 * The length of the valid UTF-8 sequence at `i`, as utf8.DecodeRune accepts it, or 0 when the byte there
 * starts none: a stray continuation byte, an overlong form, a UTF-16 surrogate, a code point past
 * U+10FFFF, or a sequence cut short by the end.
 */
export function utf8SequenceLength(b: Uint8Array, i: number): number {
  // Plain comparisons, no helper closure: a closure made per call cost about 1 µs a byte, 2.5 s over the
  // 2.25 MB base64_decode makes of a 3 MB review's text.
  const b0 = b[i];
  if (b0 < 0x80) return 1;
  if (b0 < 0xc2 || b0 > 0xf4) return 0;
  const n = b.length;
  const b1 = i + 1 < n ? b[i + 1] : -1;
  if (b0 <= 0xdf) return b1 >= 0x80 && b1 <= 0xbf ? 2 : 0;
  // The second byte's range: no overlong form (E0, F0), no surrogate (ED), nothing past U+10FFFF (F4).
  const lo = b0 === 0xe0 ? 0xa0 : b0 === 0xf0 ? 0x90 : 0x80;
  const hi = b0 === 0xed ? 0x9f : b0 === 0xf4 ? 0x8f : 0xbf;
  if (b1 < lo || b1 > hi) return 0;
  const b2 = i + 2 < n ? b[i + 2] : -1;
  if (b2 < 0x80 || b2 > 0xbf) return 0;
  if (b0 <= 0xef) return 3;
  const b3 = i + 3 < n ? b[i + 3] : -1;
  return b3 >= 0x80 && b3 <= 0xbf ? 4 : 0;
}
