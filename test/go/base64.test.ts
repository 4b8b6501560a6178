/**
 * encoding/base64's decoding errors (src/go/base64.ts) where \r and \n are involved: Go skips them, and an
 * incomplete last quantum is reported at its start, newlines at the end of the text not counted.
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

  it('reports an incomplete last quantum at its start, trailing newlines not counted', () => {
    expect(errorOf('aGVsbG8')).toBe('illegal base64 data at input byte 4');
    expect(errorOf('aGVsbG8\r\n\n')).toBe('illegal base64 data at input byte 4');
    expect(errorOf('a', false)).toBe('illegal base64 data at input byte 0');
  });

  it('is linear in a long run of newlines inside the text (a RegExp anchored at the end was quadratic: minutes here)', () => {
    expect(errorOf(`QQ${'\n'.repeat(400_000)}Q\n`)).toBe('illegal base64 data at input byte 400000');
  });
});
