import { describe, expect, it } from 'vitest';
import { cloneJson, isFloatLiteral, jsonEqual, parseJson, JsonParseError } from '../../src/json/index.js';

describe('parseJson', () => {
  it('parses like JSON.parse for ordinary documents', () => {
    const text = '{"a":[1,2.5,"x",null,true],"b":{"c":-3e-2}}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('remembers integral float literals so CEL can type them as double', () => {
    const doc = parseJson('{"i":1,"d":1.0,"e":2E3,"f":0.5,"l":[3,4.0]}') as any;
    expect(doc).toEqual({ i: 1, d: 1, e: 2000, f: 0.5, l: [3, 4] });
    expect(isFloatLiteral(doc, 'i')).toBe(false);
    expect(isFloatLiteral(doc, 'd')).toBe(true);
    expect(isFloatLiteral(doc, 'e')).toBe(true);
    expect(isFloatLiteral(doc, 'f')).toBe(false); // non-integral: already a double
    expect(isFloatLiteral(doc.l, 0)).toBe(false);
    expect(isFloatLiteral(doc.l, 1)).toBe(true);
  });

  it('ignores number-like text inside strings', () => {
    const doc = parseJson('{"s":"1.0","t":"a\\"1.0"}') as any;
    expect(doc).toEqual({ s: '1.0', t: 'a"1.0' });
  });

  it('keeps __proto__ and constructor keys as plain data on both paths', () => {
    for (const text of ['{"__proto__":{"polluted":1},"constructor":2}', '{"__proto__":{"polluted":1.0},"constructor":2}']) {
      const doc = parseJson(text) as any;
      expect(Object.keys(doc)).toEqual(['__proto__', 'constructor']);
      expect(({} as any).polluted).toBeUndefined();
      expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
      const copy = cloneJson(doc);
      expect(Object.keys(copy)).toEqual(['__proto__', 'constructor']);
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect(jsonEqual(doc, copy)).toBe(true);
    }
  });

  it('refuses documents nested deeper than the limit without exhausting the stack', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(() => parseJson(deep)).toThrow(JsonParseError);
    expect(() => parseJson('[[[1]]]', { maxDepth: 2 })).toThrow(/deeper than 2/);
    expect(parseJson('[[[1]]]', { maxDepth: 3 })).toEqual([[[1]]]);
  });

  it('reports malformed input with a JsonParseError on both paths', () => {
    expect(() => parseJson('{"a":')).toThrow(JsonParseError);
    expect(() => parseJson('{"a":1.0,}')).toThrow(JsonParseError);
    expect(() => parseJson('[1.0] x')).toThrow(/after JSON value/);
  });
});

describe('jsonEqual', () => {
  it('ignores key order and respects list order', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });
});
