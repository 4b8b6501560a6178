import { describe, expect, it } from 'vitest';
import { cel, celError, celMixed } from './env.js';

describe('strings extension', () => {
  it('indexes by code point', () => {
    expect(cel("'ta©o©αT'.charAt(4)")).toBe('©');
    expect(cel("'a😀b'.indexOf('b')")).toBe(2n);
    expect(cel("'a😀b😀'.lastIndexOf('😀')")).toBe(3n);
    expect(cel("'a😀bc'.substring(1, 3)")).toBe('😀b');
    expect(cel("'😀😀'.reverse()")).toBe('😀😀');
    expect(cel("'abc'.reverse()")).toBe('cba');
  });

  it('follows cel-go bounds and messages', () => {
    expect(cel("'abc'.charAt(3)")).toBe('');
    expect(celError("'abc'.charAt(4)")).toBe('index out of range: 4');
    expect(celError("'abc'.charAt(-1)")).toBe('index out of range: -1');
    expect(cel("'hello'.indexOf('', 10)")).toBe(10n);
    expect(cel("''.indexOf('a')")).toBe(-1n);
    expect(celError("'abc'.indexOf('a', 3)")).toBe('index out of range: 3');
    expect(cel("''.lastIndexOf('a')")).toBe(-1n);
    expect(cel("'abc'.lastIndexOf('')")).toBe(3n);
    expect(cel("'bananananana'.lastIndexOf('nana', 7)")).toBe(6n);
    expect(celError("'abc'.lastIndexOf('a', -1)")).toBe('index out of range: -1');
    expect(cel("'abc'.substring(3)")).toBe('');
    expect(celError("'abc'.substring(4)")).toBe('index out of range: 4');
    expect(celError("'abc'.substring(2, 1)")).toBe('invalid substring range. start: 2, end: 1');
    expect(celError("'abc'.substring(0, 4)")).toBe('index out of range: 4');
  });

  it('replace and split as Go strings.Replace / SplitN', () => {
    expect(cel("'aaa'.replace('a', 'b', 2)")).toBe('bba');
    expect(cel("'aaa'.replace('a', 'b', -1)")).toBe('bbb');
    expect(cel("'aaa'.replace('a', 'b', 0)")).toBe('aaa');
    expect(cel("'ab'.replace('', '-')")).toBe('-a-b-');
    expect(cel("'ab'.replace('', '-', 2)")).toBe('-a-b');
    expect(cel("'a,b,c'.split(',')")).toEqual(['a', 'b', 'c']);
    expect(cel("'a,b,c'.split(',', 2)")).toEqual(['a', 'b,c']);
    expect(cel("'a,b,c'.split(',', 0)")).toEqual([]);
    expect(cel("'a😀b'.split('')")).toEqual(['a', '😀', 'b']);
    expect(cel("'abc'.split('', 2)")).toEqual(['a', 'bc']);
    expect(cel("''.split(',')")).toEqual(['']);
    expect(cel("''.split('')")).toEqual([]);
  });

  it('strings.quote escapes what CEL string literals escape', () => {
    expect(cel('strings.quote("a\\"b\\\\c\\n\\t")')).toBe('"a\\"b\\\\c\\n\\t"');
    expect(cel('strings.quote(s)', { s: 'x\ud800y' })).toBe('"x\ufffdy"');
    expect(celError('strings.nope("a")')).toBeDefined();
  });

  describe('format', () => {
    it('formats each clause as cel-go', () => {
      expect(cel('"%s|%d|%b|%o|%x|%X".format(["s", 42, 5, 8, 255, 255])')).toBe('s|42|101|10|ff|FF');
      expect(cel('"%x".format([-30])')).toBe('-1e');
      expect(cel('"%.2f|%.0f|%f".format([0.125, 2.5, 1.0])')).toBe('0.12|2|1.000000');
      expect(cel('"%e|%.0e|%.2e".format([0.0, 5.0, -1234.5678])')).toBe('0.000000e+00|5e+00|-1.23e+03');
      expect(cel('"%d|%s".format([2.5, 1e21])')).toBe('2.5|1000000000000000000000');
      expect(cel('"%s".format([{"b": [1, "x"], "a": null}])')).toBe('{a: null, b: [1, x]}');
      expect(cel('"%s".format([b"\\xff"])')).toBe('\ufffd');
      expect(cel('"%s %s".format([duration("1.5s"), timestamp("2024-01-02T03:04:05.120Z")])')).toBe(
        '1.5s 2024-01-02T03:04:05.12Z',
      );
      expect(cel('"100%% %s".format(["sure"])')).toBe('100% sure');
    });

    it('takes mixed-type list and map literals where other calls may not (cel-go exempts format)', () => {
      expect(cel('"%s-%d".format([s, 42])', { s: 'web' })).toBe('web-42');
      expect(cel('"%s-%d".format(["web", 42]).size()')).toBe(6n);
      expect(celError('["web", 42].size() == 2')).toBe("expected type 'string' but found 'int'");
      expect(celError('{"a": 1, "b": "x"}.size() == 2')).toBe("expected type 'int' but found 'string'");
      expect(celMixed('["web", 42].size()')).toBe(2n);
    });

    it('reports bad clauses and arguments with cel-go texts', () => {
      expect(celError('"%d %d".format([1])')).toBe('index 1 out of range');
      expect(celError('"%".format([1])')).toBe('unexpected end of string');
      expect(celError('"%".format([])')).toBe('index 0 out of range');
      expect(celError('"%q".format([1])')).toBe('could not parse formatting clause: unrecognized formatting clause "q"');
      expect(celError('"%.f".format([1.0])')).toMatch(/^could not parse formatting clause: error while parsing precision/);
      expect(celError('"%.3".format([1.0])')).toBe(
        'could not parse formatting clause: error while parsing precision: could not find end of precision specifier',
      );
      expect(celError('"%b".format(["x"])')).toBe(
        'error during formatting: only integers and bools can be formatted as binary, was given string',
      );
      expect(celError('"%s".format([optional.of(1)])')).toMatch(/^error during formatting: string clause can only be used on/);
      expect(celError('"%.5000f".format([1.0])')).toMatch(/exceeds maximum allowed precision/);
    });
  });
});

describe('join', () => {
  it("refuses a non-string element with cel-go's text, the element as Go's %v prints it", () => {
    expect(cel('l.join("-")', { l: ['a', 'b'] })).toBe('a-b');
    expect(celError('l.join("-")', { l: ['a', 1n] })).toBe('join: invalid input: 1');
    expect(celError('l.join()', { l: ['a', true] })).toBe('join: invalid input: true');
    // types.Null is an int32 enum without a String method: %v prints its number.
    expect(celError('l.join()', { l: ['a', null] })).toBe('join: invalid input: 0');
  });
});

describe('trim (Go strings.TrimSpace)', () => {
  it("removes Go's white space from both ends and nothing inside", () => {
    expect(cel("' \\t\\n\\v\\f\\r a b \\r\\n'.trim()")).toBe('a b');
    // U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 are Go spaces.
    const goSpaces = '\u0085\u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000';
    expect(cel('s.trim()', { s: `${goSpaces}x${goSpaces}` })).toBe('x');
    // U+FEFF and U+200B are not (JavaScript's trim removes the first).
    expect(cel('s.trim()', { s: '\ufeffx\u200b' })).toBe('\ufeffx\u200b');
    expect(cel("''.trim()")).toBe('');
    expect(cel("'   '.trim()")).toBe('');
    expect(cel("'😀 '.trim()")).toBe('😀');
  });

  it('is linear in a long run of spaces inside the text (a RegExp anchored at the end was quadratic: minutes here)', () => {
    const inside = `a${' '.repeat(400_000)}b`;
    expect(cel('s.trim()', { s: `  ${inside}\n` })).toBe(inside);
  });
});
