/** Policy file bytes to text (src/sources/text.ts): UTF-8 or UTF-16 with its mark; anything else refused at its first bad byte. */
import { describe, expect, it } from 'vitest';
import { decodeDocumentBytes, NotUtf8Error } from '../../src/sources/index.js';

const bytes = (...parts: (string | number[])[]) => Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p)] : p)));

function offsetOf(b: Uint8Array): number | string {
  try {
    return decodeDocumentBytes(b);
  } catch (err) {
    if (err instanceof NotUtf8Error) return err.offset;
    throw err;
  }
}

describe('decodeDocumentBytes', () => {
  it('reads UTF-8 (with a byte-order mark dropped) and UTF-16 with its mark', () => {
    expect(decodeDocumentBytes(bytes('a: café 😀'))).toBe('a: café 😀');
    expect(decodeDocumentBytes(bytes([0xef, 0xbb, 0xbf], 'a: 1'))).toBe('a: 1');
    expect(decodeDocumentBytes(Uint8Array.from([0xff, 0xfe, ...Buffer.from('a: é', 'utf16le')]))).toBe('a: é');
    expect(decodeDocumentBytes(Uint8Array.from([0xfe, 0xff, ...Buffer.from('a: é', 'utf16le').swap16()]))).toBe('a: é');
  });

  it('refuses bytes that are not UTF-8, naming the first bad one', () => {
    expect(offsetOf(bytes('team: caf', [0xe9], '\n'))).toBe(9); // Latin-1 é
    expect(offsetOf(bytes('ok é ', [0xc0, 0xaf]))).toBe(6); // overlong /
    expect(offsetOf(bytes('x', [0xed, 0xa0, 0x80]))).toBe(1); // a UTF-16 surrogate
    expect(offsetOf(bytes('x', [0xf4, 0x90, 0x80, 0x80]))).toBe(1); // past U+10FFFF
    expect(offsetOf(bytes('xy', [0xe2, 0x82]))).toBe(2); // cut short at the end
    expect(offsetOf(bytes('x', [0xe2, 0x41, 0x41]))).toBe(1); // a lead byte without its continuation
    expect(offsetOf(bytes('x', [0x80]))).toBe(1); // a continuation byte alone
    expect(() => decodeDocumentBytes(bytes([0xe9]))).toThrow('not valid UTF-8 at byte 0 (0x0): save the file as UTF-8');
  });
});
