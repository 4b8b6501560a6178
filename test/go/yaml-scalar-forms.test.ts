/**
 * The forms of go-yaml v2's integers that src/go/yaml.ts reads without a regex or a bigint (decimals of up
 * to 15 digits) next to those it does not, and uniqueKeys around `<<` merges (the keys of a mapping are
 * checked against the mapping itself until a merge brings others in). Values as go-yaml v2 and
 * sigs.k8s.io/yaml give them.
 */
import { describe, expect, it } from 'vitest';
import { isFloatLiteral } from '../../src/json/float-literals.js';
import { exactInteger } from '../../src/json/exact-integers.js';
import { parseYaml11, parseYaml11Document, yaml11Json } from '../../src/go/yaml.js';

const strict = (text: string) => yaml11Json(parseYaml11Document(text), text, { uniqueKeys: true, markNumbers: true });

describe('integers', () => {
  it('reads signed and unsigned decimals, zero and its signed forms', () => {
    expect(parseYaml11('[0, -0, +0, 7, +7, -7, 123456789012345, -123456789012345]')).toEqual([0, 0, 0, 7, 7, -7, 123456789012345, -123456789012345]);
    expect(Object.is((parseYaml11('a: -0') as { a: number }).a, 0)).toBe(true);
  });

  it('reads past 15 digits, prefixes, octal and underscores as before', () => {
    expect(parseYaml11('[1234567890123456, 0400, 0x1F, 0o17, 0b101, 1_000, 08, 09.5, -012]')).toEqual([1234567890123456, 256, 31, 15, 5, 1000, 8, 9.5, -10]);
    const big = strict('a: 9007199254740993\nb: 18446744073709551615') as Record<string, number>;
    expect(exactInteger(big, 'a')).toBe(9007199254740993n);
    expect(exactInteger(big, 'b')).toBeUndefined();
  });

  it('leaves texts that only start like numbers as strings', () => {
    expect(parseYaml11('[1a, +, -x, +-1, 12-3, 1.2.3, 2024-01-02, "12"]')).toEqual(['1a', '+', '-x', '+-1', '12-3', '1.2.3', '2024-01-02', '12']);
  });

  it('makes keys of them as Go prints them', () => {
    expect(parseYaml11('{-0: a, +7: b, 007: c, 123456789012345: d, 1.5: e}')).toEqual({ '0': 'a', '7': 'c', '123456789012345': 'd', '1.5': 'e' });
  });

  it('resolves them under explicit tags', () => {
    expect(parseYaml11('[!!float 12, !!int 12, !!str 12, !!float -0]')).toEqual([12, 12, '12', 0]);
    expect(() => parseYaml11('!!bool 12')).toThrow('cannot decode !!int `12` as a !!bool');
    expect(() => parseYaml11('!!null 12')).toThrow('cannot decode !!int `12` as a !!null');
  });

  it('marks float literals but not decimals', () => {
    const v = strict('a: 1.0\nb: 1\nc: 1e3') as Record<string, number>;
    expect([isFloatLiteral(v, 'a'), isFloatLiteral(v, 'b'), isFloatLiteral(v, 'c')]).toEqual([true, false, true]);
  });
});

describe('uniqueKeys and merges', () => {
  it('refuses a key written twice, before or after a merge', () => {
    expect(() => strict('a: 1\nb: 2\na: 3')).toThrow('Map keys must be unique: key "a" already set in map');
    expect(() => strict('m: &m {x: 1}\nr:\n  a: 1\n  <<: *m\n  a: 2')).toThrow('Map keys must be unique: key "a" already set in map');
    expect(() => strict('m: &m {x: 1}\nr:\n  <<: *m\n  b: 1\n  b: 2')).toThrow('Map keys must be unique: key "b" already set in map');
  });

  it('lets a key written once replace a merged one, either way round', () => {
    expect(strict('m: &m {p: 1, q: 2}\nr:\n  p: 0\n  <<: *m\n  q: 3')).toEqual({ m: { p: 1, q: 2 }, r: { p: 1, q: 3 } });
    expect(strict('m: &m {p: 1}\nr:\n  <<: [*m, {p: 2}]\n  <<: {p: 3}')).toEqual({ m: { p: 1 }, r: { p: 3 } });
  });

  it('compares keys as the JSON keys they become', () => {
    expect(() => strict('1: a\n"1": b')).toThrow('Map keys must be unique: key "1" already set in map');
    expect(() => strict('__proto__: 1\n__proto__: 2')).toThrow('key "__proto__" already set');
    expect(strict('constructor: 1\ntoString: 2')).toEqual({ constructor: 1, toString: 2 });
  });
});

describe('successive texts (parseYaml11 and parseYaml11FirstDocument share one Schema)', () => {
  it('read the same whatever was read before', () => {
    const texts = ['%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\nb: !!binary aGk=', 'a: !<constructor> x\nb: !!set {p: 1}', '%YAML 1.2\n---\na: 0o17\nb: yes', 'a: !!int 0x1F\nb: !!timestamp 2024-01-02'];
    const first = texts.map((t) => JSON.stringify(parseYaml11(t)));
    expect(first).toEqual(['{"a":"1","b":"hi"}', '{"a":"x","b":{"p":1}}', '{"a":15,"b":true}', '{"a":31,"b":"2024-01-02"}']);
    for (let i = 0; i < 2; i++) expect([...texts].reverse().map((t) => JSON.stringify(parseYaml11(t))).reverse()).toEqual(first);
  });
});
