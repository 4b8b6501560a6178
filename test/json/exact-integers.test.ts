/**
 * Integers past ±2^53 as the API server's Go decoder reads them: exactly, within int64 (src/json's
 * parser remembers each such literal for CEL; the document itself keeps plain numbers).
 */
import { describe, expect, it } from 'vitest';
import { exactInteger, isFloatLiteral, parseJson } from '../../src/json/index.js';

describe('parseJson: integers past ±2^53', () => {
  const doc = parseJson(
    '{"max": 9223372036854775807, "min": -9223372036854775808, "next": 9007199254740993, "safe": 9007199254740991, ' +
      '"past": 9223372036854775808, "float": 9007199254740993.0, "text": "9007199254740993", "list": [1, 9007199254740993], "dup": 9007199254740995, "dup": 9007199254740997}',
  ) as Record<string, any>;

  it('remember their exact value within int64', () => {
    expect(exactInteger(doc, 'max')).toBe(9223372036854775807n);
    expect(exactInteger(doc, 'min')).toBe(-9223372036854775808n);
    expect(exactInteger(doc, 'next')).toBe(9007199254740993n);
    expect(exactInteger(doc.list, 1)).toBe(9007199254740993n);
    // The document holds plain numbers, as JSON.parse gives them.
    expect(doc.max).toBe(9223372036854775807);
    expect(doc.next).toBe(9007199254740992);
  });

  it('leave alone what Go reads as a float64 or a string', () => {
    expect(exactInteger(doc, 'safe')).toBeUndefined();
    expect(exactInteger(doc, 'past')).toBeUndefined(); // past int64: a float64 for Go's decoder too
    expect(exactInteger(doc, 'float')).toBeUndefined();
    expect(isFloatLiteral(doc, 'float')).toBe(true);
    expect(exactInteger(doc, 'text')).toBeUndefined();
  });

  it('take a repeated key\'s last literal', () => {
    expect(exactInteger(doc, 'dup')).toBe(9007199254740997n);
  });

  it('give no value once another number is put in the slot', () => {
    const d = parseJson('{"a": 9007199254740993}') as Record<string, number>;
    d.a = 1;
    expect(exactInteger(d, 'a')).toBeUndefined();
  });

  it('are found wherever JSON puts a number: after blanks, a minus sign, in nested lists', () => {
    const d = parseJson('{"a" :\n\t-9007199254740993 , "b": [ [\n 9007199254740995\n] ]}') as { a: number; b: number[][] };
    expect(exactInteger(d, 'a')).toBe(-9007199254740993n);
    expect(exactInteger(d.b[0], 0)).toBe(9007199254740995n);
  });

  it('are found in a long document among digits in strings', () => {
    const filler = Array.from({ length: 200 }, (_, i) => `"k${i}": "${'7'.repeat(20 + (i % 17))}"`).join(', ');
    const d = parseJson(`{${filler}, "n": 12345678901234567}`) as Record<string, number>;
    expect(exactInteger(d, 'n')).toBe(12345678901234567n);
  });
});
