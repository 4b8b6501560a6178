/**
 * A number literal past the double range: the API server never sends one (Go's encoding/json refuses it
 * with strconv's range error), so parseJson refuses it as malformed instead of reading ±Infinity. One
 * too small for a double reads as 0, as strconv.ParseFloat reads it without an error.
 */
import { describe, expect, it } from 'vitest';
import { isFloatLiteral, parseJson } from '../../src/json/index.js';
import { refusal } from './helpers.js';

const MILLION_DIGITS = `1${'0'.repeat(999_999)}`;

describe('parseJson: numbers past the double range', () => {
  it('refuses an exponent that overflows, naming the number and where it is', () => {
    expect(refusal('{"spec":{"priority":1e999}}')).toBe('Number 1e999 is out of the range of a double at position 20');
    expect(refusal('{"a":-1e999}')).toMatch(/^Number -1e999 is out of the range of a double/);
    expect(refusal('{"a":[1,2,1.8e308]}')).toMatch(/^Number 1.8e308 is out of the range/);
    expect(refusal('1e400')).toMatch(/^Number 1e400 is out of the range/);
  });

  it('refuses an integer too long for a double, quoting only its start', () => {
    const message = refusal(`{"spec":{"priority":${MILLION_DIGITS}}}`);
    expect(message).toBe('Number 1000000000000000… (1000000 characters) is out of the range of a double at position 20');
    expect(refusal(`{"a":-${'9'.repeat(400)}}`)).toMatch(/^Number -999999999999999… \(401 characters\) is out of the range/);
  });

  it('refuses an overflow wherever the exact parser is taken anyway (an integral float, a deep document)', () => {
    expect(refusal('{"a":1.0,"b":1e999}')).toMatch(/^Number 1e999 is out/);
    expect(refusal(`{"a":1.0,"b":${MILLION_DIGITS}}`)).toMatch(/^Number 1000000000000000… /);
    expect(refusal(`{"a":${'['.repeat(600)}1e999${']'.repeat(600)}}`)).toMatch(/^Number 1e999 is out/);
  });

  it('reads the largest doubles, and what rounds down to them, as they are', () => {
    expect(parseJson('{"a":1.7976931348623157e308,"b":-1.7976931348623158e308}')).toEqual({ a: Number.MAX_VALUE, b: -Number.MAX_VALUE });
    expect(parseJson(`{"a":1${'0'.repeat(308)}}`)).toEqual({ a: 1e308 });
    const doc = parseJson('{"a":1e308,"b":1.0}') as Record<string, number>;
    expect(doc).toEqual({ a: 1e308, b: 1 });
    expect(isFloatLiteral(doc, 'a')).toBe(true);
  });

  it('reads an underflow as 0, as Go does', () => {
    expect(parseJson('{"a":1e-400,"b":-1e-400,"c":[1e-400]}')).toEqual({ a: 0, b: -0, c: [0] });
  });

  it('leaves number-like text in strings alone', () => {
    expect(parseJson(`{"a":"1e999","b":"${'9'.repeat(400)}","c":1}`)).toEqual({ a: '1e999', b: '9'.repeat(400), c: 1 });
  });
});
