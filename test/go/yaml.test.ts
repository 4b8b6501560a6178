/**
 * YAML 1.1 → JSON (src/go/yaml.ts), one reader for `patchesJson6902` text and `parse_yaml`, which
 * Kyverno both decode with sigs.k8s.io/yaml YAMLToJSON (go-yaml v2, then encoding/json). The engine's
 * and the JMESPath module's copies disagreed on the inputs below; the expected values are go-yaml v2's.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { parseYaml11 } from '../../src/go/yaml.js';
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
