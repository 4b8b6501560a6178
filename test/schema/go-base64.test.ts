/**
 * base64.StdEncoding as encoding/json decodes a `[]byte` field: the offsets of its CorruptInputError and
 * the text it writes back. Vectors: Go's encoding/base64 TestDecodeCorrupt.
 */
import { describe, expect, it } from 'vitest';
import { canonicalGoBase64, decodeGoBase64, encodeGoBase64 } from '../../src/schema/go-base64.js';

describe('Go base64 (StdEncoding)', () => {
  it.each([
    ['', -1], ['\n', -1], ['AAA=\n', -1], ['AAAA\n', -1], ['!!!!', 0], ['====', 0], ['x===', 1], ['=AAA', 0],
    ['A=AA', 1], ['AA=A', 2], ['AA==A', 4], ['AAA=AAAA', 4], ['AAAAA', 4], ['AAAAAA', 4], ['A=', 1], ['A==', 1],
    ['AA=', 3], ['AA==', -1], ['AAA=', -1], ['AAAA', -1], ['AAAAAA=', 7], ['YWJjZA=====', 8], ['A!\n', 1], ['A=\n', 1],
  ] as const)('%j: error at %i (-1: decodes)', (text, offset) => {
    const r = decodeGoBase64(text);
    if (offset < 0) expect(r.ok).toBe(true);
    else expect(r).toEqual({ ok: false, message: `illegal base64 data at input byte ${offset}` });
  });

  it('offsets count UTF-8 bytes', () => {
    expect(decodeGoBase64('ab\u00e9d')).toEqual({ ok: false, message: 'illegal base64 data at input byte 2' });
    expect(decodeGoBase64('abcd\u00e9')).toEqual({ ok: false, message: 'illegal base64 data at input byte 4' });
  });

  it('decodes and writes back as Go does: padded, newlines dropped, unused bits zero', () => {
    const hello = decodeGoBase64('aGVs\r\nbG8=');
    expect(hello.ok && Buffer.from(hello.bytes).toString()).toBe('hello');
    expect(encodeGoBase64(new TextEncoder().encode('hello world'))).toBe('aGVsbG8gd29ybGQ=');
    expect(canonicalGoBase64('YR==')).toBe('YQ==');
    expect(canonicalGoBase64('YWJj\nZA==')).toBe('YWJjZA==');
    expect(canonicalGoBase64('YWJjZA==')).toBe('YWJjZA==');
    expect(canonicalGoBase64('not base64')).toBe('not base64');
  });
});
