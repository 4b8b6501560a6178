/**
 * base64_decode keeps bytes that are not UTF-8 (each as U+DC00 + byte, see go-bytes.ts), and functions
 * reading a string's bytes (sha256, base64_encode, …) turn them back. Both directions called TextDecoder /
 * TextEncoder once per byte or character of such text, and Go's UTF-8 check made a closure per byte: over
 * the 2.25 MB that base64_decode makes of a 3 MB annotation, 3.8 s in one call the review deadline cannot
 * interrupt. Now one pass each. Counted, not timed: the coder calls a decode makes, and the bytes it gives
 * back (round trips of random bytes, hashes against node:crypto).
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { search } from '../../src/kyverno/jmespath/index.js';
import { Prng } from './helpers/prng.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** 'aaaa' decodes to 69 A6 9A: one valid byte, two rejected, over and over. */
const MIXED = 'a'.repeat(400_000);

describe('base64_decode of text that is not UTF-8', () => {
  it('decodes and re-encodes with a bounded number of coder calls, whatever the length', () => {
    const decodes = vi.spyOn(TextDecoder.prototype, 'decode');
    const encodes = vi.spyOn(TextEncoder.prototype, 'encode');
    expect(search('base64_encode(base64_decode(s))', { s: MIXED })).toBe(MIXED);
    expect(decodes.mock.calls.length).toBeLessThan(5);
    expect(encodes.mock.calls.length).toBeLessThan(5);
  });

  it('keeps every byte: random bytes round-trip and hash as Go hashes them', () => {
    const random = new Prng(61);
    // Bytes biased to UTF-8 lead and continuation bytes, so that valid 2-, 3- and 4-byte sequences,
    // overlong forms, surrogates and cut-short sequences all occur.
    const alphabet = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
    for (let round = 0; round < 200; round++) {
      const bytes = Buffer.from(Array.from({ length: 1 + random.int(40) }, () => random.pick(alphabet)));
      const data: JsonValue = { s: bytes.toString('base64') };
      expect(search('base64_encode(base64_decode(s))', data)).toBe(bytes.toString('base64'));
      expect(search('sha256(base64_decode(s))', data)).toBe(createHash('sha256').update(bytes).digest('hex'));
      // Go counts one rune per rejected byte, and one per valid sequence.
      expect(search('length(base64_decode(s))', data)).toBe(goRuneCount(bytes));
    }
  });
});

/** utf8.RuneCount: a valid sequence is one rune, any other byte one rune by itself. */
function goRuneCount(bytes: Buffer): number {
  let count = 0;
  for (let i = 0; i < bytes.length; count++) {
    const b0 = bytes[i];
    const next = (k: number, lo = 0x80, hi = 0xbf) => i + k < bytes.length && bytes[i + k] >= lo && bytes[i + k] <= hi;
    let n = 1;
    if (b0 >= 0xc2 && b0 <= 0xdf && next(1)) n = 2;
    else if (b0 >= 0xe0 && b0 <= 0xef && next(1, b0 === 0xe0 ? 0xa0 : 0x80, b0 === 0xed ? 0x9f : 0xbf) && next(2)) n = 3;
    else if (b0 >= 0xf0 && b0 <= 0xf4 && next(1, b0 === 0xf0 ? 0x90 : 0x80, b0 === 0xf4 ? 0x8f : 0xbf) && next(2) && next(3)) n = 4;
    i += n;
  }
  return count;
}
