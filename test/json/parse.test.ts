import { describe, expect, it } from 'vitest';
import { cloneJson, exactInteger, isFloatLiteral, jsonEqual, parseJson, JsonParseError, sliceArray } from '../../src/json/index.js';

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

  it('types a repeated key by its last value, as it keeps that value', () => {
    const doc = parseJson('{"a":1.0,"a":2,"b":2,"b":1.0,"c":1.0,"c":3.0}') as any;
    expect(doc).toEqual({ a: 2, b: 1, c: 3 });
    expect(isFloatLiteral(doc, 'a')).toBe(false);
    expect(isFloatLiteral(doc, 'b')).toBe(true);
    expect(isFloatLiteral(doc, 'c')).toBe(true);
  });

  it('finds the numbers of a document that is mostly string (the separator search) as of any other', () => {
    // Long strings between few separators: the scan looks from each `:`, `,` and `[` instead of at every digit.
    const long = 'value 12 of 1.0 and v1.2.3 then 7.0 '.repeat(400);
    const doc = parseJson(`{"a":"${long}","b": [ 1 , 2.0 ],"c":\n-3e1 ,"d":9007199254740993,"e":"x:1.0,","f":1.5}`) as any;
    expect(doc.a).toBe(long);
    expect(isFloatLiteral(doc.b, 0)).toBe(false);
    expect(isFloatLiteral(doc.b, 1)).toBe(true);
    expect(isFloatLiteral(doc, 'c')).toBe(true);
    expect(exactInteger(doc, 'd')).toBe(9007199254740993n);
    expect(isFloatLiteral(doc, 'f')).toBe(false);
    const plain = parseJson(`{"a":"${long}","b":[1,2],"e":"x:1.0,"}`) as any;
    expect(isFloatLiteral(plain.b, 1)).toBe(false);
    expect(() => parseJson(`{"a":"${long}","b":1e999}`)).toThrow(JsonParseError);
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
    expect(() => parseJson('[1.0] x')).toThrow(/after the JSON value/);
  });
});

/**
 * A seeded random document and its text, written with blanks in random places, strings that look like
 * numbers in JSON (`":1.0,"`), and numbers of every form; `floats` lists where the text wrote an integral
 * value as a float literal (what `isFloatLiteral` must report), as [container path, key].
 */
function randomDocument(seed: number): { text: string; floats: [(string | number)[], string | number][]; value: unknown } {
  let state = seed;
  const rand = (n: number) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
  const blank = () => [' ', '', '', '\n  ', '\t', '\r\n'][rand(6)];
  const floats: [(string | number)[], string | number][] = [];
  const trickyStrings = ['1.0', ':1.0,', ',2.0]', '[3e0}', 'a\\":4.0,', '5.0\\\\', 'img:1.25.3', 'x:6.0 ,', '\\u00221.0,', 'e1.0,'];
  const number = (path: (string | number)[], key: string | number): [string, number] => {
    switch (rand(7)) {
      case 0: { const v = rand(100) - 50; return [String(v), v]; }
      case 1: { const v = rand(100); floats.push([path, key]); return [`${v}.0`, v]; }
      case 2: { const v = rand(9) + 1; floats.push([path, key]); return [`${v}e${rand(3)}`, v * 10 ** 0]; }
      case 3: { const v = (rand(100) + 1) / 4 + 0.01; return [String(v), v]; }
      case 4: { floats.push([path, key]); return ['-1.50E+1', -15]; }
      case 5: { floats.push([path, key]); return ['2.5e1', 25]; }
      default: return ['0.125', 0.125];
    }
  };
  const gen = (depth: number, path: (string | number)[], key: string | number): [string, unknown] => {
    const kind = depth > 4 ? rand(3) : rand(6);
    if (kind === 0) {
      const [text, v] = number(path, key);
      return [text, kind === 0 && /e/i.test(text) ? Number(text) : v];
    }
    if (kind === 1) {
      const s = trickyStrings[rand(trickyStrings.length)];
      return [`"${s}"`, JSON.parse(`"${s}"`)];
    }
    if (kind === 2) return [['true', 'false', 'null'][rand(3)], [true, false, null][rand(3)]];
    const here = key === '' && path.length === 0 ? [] : [...path, key];
    if (kind === 3) {
      const items = Array.from({ length: rand(5) }, (_, i) => gen(depth + 1, here, i));
      return [`[${blank()}${items.map(([t]) => t).join(`${blank()},${blank()}`)}${blank()}]`, items.map(([, v]) => v)];
    }
    const keys = Array.from({ length: rand(5) }, (_, i) => `${trickyStrings[rand(trickyStrings.length)]}${i}`);
    const entries = keys.map((k) => [k, gen(depth + 1, here, JSON.parse(`"${k}"`))] as const);
    const text = `{${blank()}${entries.map(([k, [t]]) => `"${k}"${blank()}:${blank()}${t}`).join(`${blank()},${blank()}`)}${blank()}}`;
    return [text, Object.fromEntries(entries.map(([k, [, v]]) => [JSON.parse(`"${k}"`), v]))];
  };
  const [text, value] = gen(0, [], '');
  return { text, floats, value };
}

describe('parseJson on random documents', () => {
  it('gives JSON.parse\'s value and marks exactly the integral float literals, whatever the strings hold', () => {
    let withFloats = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const { text, floats } = randomDocument(seed);
      const doc = parseJson(text) as any;
      expect(doc).toEqual(JSON.parse(text));
      const marked = new Set<string>();
      const walk = (v: unknown, path: (string | number)[]) => {
        if (v === null || typeof v !== 'object') return;
        for (const k of Array.isArray(v) ? v.keys() : Object.keys(v)) {
          const child = (v as any)[k];
          if (isFloatLiteral(v as object, k)) marked.add(JSON.stringify([path, k]));
          walk(child, [...path, k]);
        }
      };
      walk(doc, []);
      const expected = new Set(floats.filter(([path, key]) => path.length > 0 || key !== '').map(([p, k]) => JSON.stringify([p, k])));
      expect([...marked].sort(), `seed ${seed}: ${text}`).toEqual([...expected].sort());
      if (expected.size > 0) withFloats++;
    }
    expect(withFloats).toBeGreaterThan(500);
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

describe('sliceArray and cloneJson on frozen documents (the compiled policies are frozen)', () => {
  it('copy like slice and a deep copy, whether the array is frozen or not', () => {
    const items = [1, 'a', { b: [2, 3] }, null];
    const frozen = Object.freeze([...items]);
    for (const list of [items, frozen]) {
      expect(sliceArray(list)).toEqual(items);
      expect(sliceArray(list, 1, 3)).toEqual(items.slice(1, 3));
      expect(sliceArray(list, 2)).toEqual(items.slice(2));
      expect(sliceArray(list, 4)).toEqual([]);
      const copy = sliceArray(list);
      expect(copy).not.toBe(list);
      expect(Object.isFrozen(copy)).toBe(false);
      copy.push('more');
      expect(list).toHaveLength(4);
    }
    const doc = Object.freeze({ a: Object.freeze([Object.freeze({ b: 1 }), 'x']) });
    const cloned = cloneJson(doc as never) as { a: unknown[] };
    expect(cloned).toEqual({ a: [{ b: 1 }, 'x'] });
    expect(Object.isFrozen(cloned.a)).toBe(false);
    expect(cloned.a[0]).not.toBe(doc.a[0]);
  });
});
