/**
 * YAML 1.1 → JSON (src/go/yaml.ts), one reader for `patchesJson6902` text and `parse_yaml`, which
 * Kyverno both decode with sigs.k8s.io/yaml YAMLToJSON (go-yaml v2, then encoding/json). The engine's
 * and the JMESPath module's copies disagreed on the inputs below; the expected values are go-yaml v2's.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { parseYaml11, YamlError } from '../../src/go/yaml.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';
import { parsePatchText } from '../../src/kyverno/patchers/json6902.js';

/** Both users of the reader: parse_yaml and a patchesJson6902 text. */
function viaBoth(text: string): { parseYaml: JsonValue | Error; patch: JsonValue | Error } {
  const r = evaluate('parse_yaml(t)', { t: text });
  let patch: JsonValue | Error;
  try {
    patch = parsePatchText(text);
  } catch (error) {
    patch = error as Error;
  }
  return { parseYaml: r.ok ? r.value : r.error, patch };
}

describe('where the two copies disagreed', () => {
  it('.inf and .nan are errors: encoding/json cannot write them (JMESPath read null)', () => {
    const { parseYaml, patch } = viaBoth('a: .inf');
    expect(parseYaml).toBeInstanceOf(Error);
    expect((parseYaml as Error).message).toContain('json: unsupported value: +Inf');
    expect(patch).toBeInstanceOf(Error);
    expect(() => parseYaml11('a: .nan')).toThrow('json: unsupported value: NaN');
  });
  it('!!binary is the decoded bytes read as UTF-8 (the engine read them as Latin-1)', () => {
    expect(viaBoth('a: !!binary w6k=')).toEqual({ parseYaml: { a: 'é' }, patch: { a: 'é' } });
    expect(parseYaml11('a: !!binary /w==')).toEqual({ a: '\ufffd' });
  });
  it('a clipped block scalar that ends the text gets no line break (the engine added one)', () => {
    const text = '- op: add\n  path: /metadata/annotations/note\n  value: |\n    first\n    second';
    expect(viaBoth(text).patch).toEqual([{ op: 'add', path: '/metadata/annotations/note', value: 'first\nsecond' }]);
    expect(parseYaml11('a: >\n  folded\n  text')).toEqual({ a: 'folded text' });
    expect(parseYaml11('a: |\n  text\n')).toEqual({ a: 'text\n' });
    expect(parseYaml11('a: |+\n  text')).toEqual({ a: 'text\n' });
  });
  it('!!set and !!omap are a plain mapping and sequence in go-yaml v2 (the copies gave a list and {})', () => {
    expect(parseYaml11('s: !!set {a, b}')).toEqual({ s: { a: null, b: null } });
    expect(parseYaml11('o: !!omap [a: 1, b: 2]')).toEqual({ o: [{ a: 1 }, { b: 2 }] });
  });
  it('an anchor may be used more than 100 times (go-yaml v2 only refuses documents made mostly of aliases)', () => {
    const text = `x: &v 1\nlist: [${Array.from({ length: 150 }, () => '*v').join(', ')}]`;
    expect((parseYaml11(text) as { list: number[] }).list).toHaveLength(150);
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++) bomb.push(`${'bcdefghij'[i]}: &${'bcdefghij'[i]} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(', ')}]`);
    expect(() => parseYaml11(bomb.join('\n'))).toThrow(/alias/i);
  });
});

describe('YAML 1.1 as go-yaml v2 reads it', () => {
  it('scalars, keys, merges and repeated keys', () => {
    expect(parseYaml11('a: yes\nb: off\nc: 0777\nd: 2001-12-14\ne: 1:20\nf: "yes"\non: y')).toEqual({
      a: true,
      b: false,
      c: 511,
      d: '2001-12-14',
      e: '1:20',
      f: 'yes',
      true: true,
    });
    expect(parseYaml11('base: &b {x: 1}\nc:\n  <<: *b\n  z: 2')).toEqual({ base: { x: 1 }, c: { x: 1, z: 2 } });
    expect(parseYaml11('a: 1\na: 2')).toEqual({ a: 2 });
    expect(parseYaml11('__proto__: 1')).toEqual(JSON.parse('{"__proto__": 1}'));
    expect(parseYaml11('')).toBeNull();
  });
  it('errors name the problem', () => {
    expect(() => parseYaml11('a: [')).toThrow();
    expect(() => parseYaml11('a: 1\n---\nb: 2')).toThrow(/multiple documents/);
  });
});

/**
 * go-yaml v2's resolve.go (the copy sigs.k8s.io/yaml ships as goyaml.v2, and gopkg.in/yaml.v2 v2.4.0):
 * resolveMapList, then by the first byte: ParseInt(s, 0, 64) / ParseUint with `_` removed, then the
 * yamlStyleFloat form; decode.go: merges and the alias ratio; sigs.k8s.io/yaml yaml.go
 * convertToJSONableObject: the JSON text of non-string keys.
 */
describe('go-yaml v2 resolve.go, word for word', () => {
  it('the booleans and nulls are exactly resolveMapList’s words', () => {
    for (const w of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) expect(parseYaml11(`a: ${w}`)).toEqual({ a: true });
    for (const w of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) expect(parseYaml11(`a: ${w}`)).toEqual({ a: false });
    for (const w of ['~', 'null', 'Null', 'NULL', '']) expect(parseYaml11(`a: ${w}`)).toEqual({ a: null });
    for (const w of ['yEs', 'oN', 'nO', 'tRUE', 'nULL', 'Y2', 'yes!']) expect(parseYaml11(`a: ${w}`)).toEqual({ a: w });
    expect(parseYaml11('a: "yes"\nb: \'on\'\nc: |\n  no\n')).toEqual({ a: 'yes', b: 'on', c: 'no\n' });
  });

  it('integers: ParseInt with base 0 (octal 0400, 0o, 0x, 0b, signs, underscores), then ParseUint', () => {
    expect(parseYaml11('a: 0400\nb: 0o17\nc: 0x1F\nd: 0X1f\ne: -0b101\nf: +0x10\ng: 1_000\nh: 0\ni: -0400')).toEqual({ a: 256, b: 15, c: 31, d: 31, e: -5, f: 16, g: 1000, h: 0, i: -256 });
    expect(parseYaml11('a: 9223372036854775807\nb: 18446744073709551615')).toEqual({ a: 9223372036854775807, b: 18446744073709551615 });
  });

  it('floats: the yamlStyleFloat form (so 08 is 8), `.`-led text by ParseFloat; the rest stays text', () => {
    expect(parseYaml11('a: 08\nb: 1e3\nc: .5\nd: -.5\ne: 1.\nf: +1.5E2\ng: 018446744073709551616')).toEqual({ a: 8, b: 1000, c: 0.5, d: -0.5, e: 1, f: 150, g: 18446744073709551616 });
    expect(parseYaml11('a: 1e400\nb: .\nc: -x\nd: 0x1p3\ne: 1:20\nf: 2001-12-14T21:59:43.10Z\ng: -0xFFFFFFFFFFFFFFFFFF')).toEqual({ a: '1e400', b: '.', c: '-x', d: '0x1p3', e: '1:20', f: '2001-12-14T21:59:43.10Z', g: '-0xFFFFFFFFFFFFFFFFFF' });
  });

  it('explicit tags resolve the text as their type, or fail as go-yaml fails', () => {
    expect(parseYaml11('a: !!int "0400"\nb: !!str 0400\nc: !!float 1\nd: !!bool "yes"\ne: !custom 12\nf: ! yes\ng: !!null ""')).toEqual({ a: 256, b: '0400', c: 1, d: true, e: '12', f: 'yes', g: null });
    expect(() => parseYaml11('a: !!int 1.5')).toThrow('cannot decode !!float `1.5` as a !!int');
    expect(() => parseYaml11('a: !!bool 1')).toThrow('cannot decode !!int `1` as a !!bool');
    expect(() => parseYaml11('a: !!binary "*"')).toThrow('!!binary value contains invalid base64 data');
  });

  it('keys: JSON text of the resolved key (float32 %g for floats); a null key is an error', () => {
    expect(parseYaml11('on: a\nn: b\n0x10: c\n1.5: d\n1e6: e\n3.14159265358979: f\n.inf: g\n"on": h')).toEqual({ true: 'a', false: 'b', 16: 'c', '1.5': 'd', '1e+06': 'e', '3.1415927': 'f', '.inf': 'g', on: 'h' });
    expect(() => parseYaml11('~: a')).toThrow('unsupported map key of type: <nil>');
    expect(() => parseYaml11('? [a]\n: b')).toThrow('invalid map key');
  });

  it('merges as decode.go does: in place and in order, the earlier mappings of a sequence winning', () => {
    expect(parseYaml11('b: &b {x: 1}\nc: {x: 0, <<: *b}')).toEqual({ b: { x: 1 }, c: { x: 1 } });
    expect(parseYaml11('b: &b {x: 1}\nc: {<<: *b, x: 0}')).toEqual({ b: { x: 1 }, c: { x: 0 } });
    expect(parseYaml11('p: &p {x: 1, q: 1}\nr: &r {x: 2, s: 2}\nc:\n  <<: [*p, *r]\n  w: 0')).toMatchObject({ c: { x: 1, q: 1, s: 2, w: 0 } });
    expect(parseYaml11('c:\n  <<: [&a {x: 1}, *a]')).toEqual({ c: { x: 1 } });
    expect(parseYaml11('"<<": {a: 1}')).toEqual({ '<<': { a: 1 } });
    expect(() => parseYaml11('c: {<<: 5}')).toThrow('map merge requires map or sequence of maps as the value');
    expect(() => parseYaml11('s: &s [1]\nc: {<<: [*s]}')).toThrow('map merge requires map or sequence of maps as the value');
  });

  it('anchors: unknown and self-containing ones are errors', () => {
    expect(() => parseYaml11('a: *nope')).toThrow("unknown anchor 'nope' referenced");
    expect(() => parseYaml11('a: &x [*x]')).toThrow("anchor 'x' value contains itself");
    expect(parseYaml11('a: &x 1\nb: *x\nc: &x 2\nd: *x')).toEqual({ a: 1, b: 1, c: 2, d: 2 });
  });
});

describe('a document nested past what the parser can walk', () => {
  it('is a YamlError that says so, not a stack overflow', () => {
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    expect(() => parseYaml11(deep)).toThrow(YamlError);
    expect(() => parseYaml11(deep)).toThrow(/nests too deeply to read/);
  });
});
