/**
 * encoding/base64's decoding errors (src/go/base64.ts): the byte decodeQuantum names. Go skips \r and \n,
 * and reports an incomplete last quantum at the text's end less its characters (CorruptInputError(si - j),
 * si past any newlines after them), a padding `=` followed by another character at that `=` (si - 1).
 */
import { describe, expect, it } from 'vitest';
import { base64Decode } from '../../src/go/index.js';

const errorOf = (text: string, padded = true): string | undefined => {
  try {
    base64Decode(text, padded);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
};

describe('base64Decode with newlines', () => {
  it('skips \\r and \\n anywhere', () => {
    expect(Buffer.from(base64Decode('aG\r\nVs\nbG8=\n')).toString()).toBe('hello');
    expect(Buffer.from(base64Decode('aGVsbG8\n', false)).toString()).toBe('hello');
  });

  it('reports an incomplete last quantum at the end less its characters, newlines after them counted', () => {
    expect(errorOf('aGVsbG8')).toBe('illegal base64 data at input byte 4');
    expect(errorOf('aGVsbG8\r\n\n')).toBe('illegal base64 data at input byte 7');
    expect(errorOf('w6\n')).toBe('illegal base64 data at input byte 1');
    expect(errorOf('a', false)).toBe('illegal base64 data at input byte 0');
    expect(errorOf('a\n', false)).toBe('illegal base64 data at input byte 1');
  });

  it('is linear in a long run of newlines inside the text (a RegExp anchored at the end was quadratic: minutes here)', () => {
    expect(errorOf(`QQ${'\n'.repeat(400_000)}Q\n`)).toBe('illegal base64 data at input byte 400001');
  });
});

describe("Go's TestDecodeCorrupt (encoding/base64/base64_test.go): the offset of each corruption", () => {
  const cases: [string, number][] = [
    ['', -1],
    ['\n', -1],
    ['AAA=\n', -1],
    ['AAAA\n', -1],
    ['!!!!', 0],
    ['====', 0],
    ['x===', 1],
    ['=AAA', 0],
    ['A=AA', 1],
    ['AA=A', 2],
    ['AA==A', 4],
    ['AAA=AAAA', 4],
    ['AAAAA', 4],
    ['AAAAAA', 4],
    ['A=', 1],
    ['A==', 1],
    ['AA=', 3],
    ['AA==', -1],
    ['AAA=', -1],
    ['AAAA', -1],
    ['AAAAAA=', 7],
    ['YWJjZA=====', 8],
    ['A!\n', 1],
    ['A=\n', 1],
  ];
  it.each(cases)('%j', (input, offset) => {
    expect(errorOf(input)).toBe(offset === -1 ? undefined : `illegal base64 data at input byte ${offset}`);
  });
  it("a padding '=' followed, past newlines, by another character is reported at the character before it", () => {
    expect(errorOf('AA=\nA')).toBe('illegal base64 data at input byte 3');
  });
});
