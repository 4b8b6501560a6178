import { describe, expect, it } from 'vitest';
import { isFloatLiteral } from '../../src/json/index.js';
import { parseDocuments } from '../../src/policyset/index.js';

describe('parseDocuments', () => {
  it('reads a YAML stream, skipping empty documents, keeping each index', () => {
    const parsed = parseDocuments('a.yaml', '---\n# nothing\n---\nkind: A\n---\nkind: B\n');
    expect(parsed.problems).toEqual([]);
    expect(parsed.documents.map((d) => [d.source, d.index, d.value.kind])).toEqual([
      ['a.yaml', 1, 'A'],
      ['a.yaml', 2, 'B'],
    ]);
  });

  it('reads JSON objects and arrays', () => {
    expect(parseDocuments('a.json', '{"kind":"A"}').documents.map((d) => d.value)).toEqual([{ kind: 'A' }]);
    expect(parseDocuments('a.json', ' [{"kind":"A"},{"kind":"B"}]').documents.map((d) => d.index)).toEqual([0, 1]);
  });

  it('keeps YAML and JSON float literals apart from integers', () => {
    const y = parseDocuments('a.yaml', 'kind: A\nspec: {a: 1.0, b: 1, c: [2.0, 3], d: 1e3}\n').documents[0].value as any;
    expect(isFloatLiteral(y.spec, 'a')).toBe(true);
    expect(isFloatLiteral(y.spec, 'b')).toBe(false);
    expect(isFloatLiteral(y.spec.c, 0)).toBe(true);
    expect(isFloatLiteral(y.spec.c, 1)).toBe(false);
    expect(isFloatLiteral(y.spec, 'd')).toBe(true);
    const j = parseDocuments('a.json', '{"kind":"A","spec":{"a":1.0,"b":1}}').documents[0].value as any;
    expect(isFloatLiteral(j.spec, 'a')).toBe(true);
    expect(isFloatLiteral(j.spec, 'b')).toBe(false);
  });

  it('flattens List kinds, items keep their position', () => {
    const parsed = parseDocuments('l.yaml', 'apiVersion: v1\nkind: List\nitems:\n- {kind: A}\n- 3\n- {kind: B}\n');
    expect(parsed.documents.map((d) => [d.index, d.item, d.value.kind])).toEqual([
      [0, 0, 'A'],
      [0, 2, 'B'],
    ]);
    expect(parsed.problems).toMatchObject([{ source: 'l.yaml', index: 0, item: 1, message: 'list item is not an object' }]);
  });

  it('refuses a List kind whose items is not a list, and a List without items; other kinds named *List stay objects', () => {
    const parsed = parseDocuments('l.yaml', 'kind: A\n---\nkind: List\nitems: {kind: B}\n---\nkind: List\n---\nkind: AllowList\nspec: {}\n---\nkind: List\nitems: []\n');
    expect(parsed.documents.map((d) => [d.index, d.value.kind])).toEqual([
      [0, 'A'],
      [3, 'AllowList'],
    ]);
    expect(parsed.problems.map((p) => [p.index, p.effect, p.message])).toEqual([
      [1, 'ignored', 'a List whose items is a mapping, not a list: its objects go in items as a sequence (items: [...])'],
      [2, 'ignored', 'a List without items: its objects go in items as a sequence (items: [...])'],
    ]);
  });

  it('reports broken documents with their position and reads the others', () => {
    const parsed = parseDocuments('b.yaml', 'kind: A\n---\nkey: [unclosed\n---\n- not an object\n---\nx: .inf\n---\nkind: B\n');
    expect(parsed.documents.map((d) => d.value.kind)).toEqual(['A', 'B']);
    expect(parsed.problems.map((p) => [p.index, p.effect])).toEqual([
      [1, 'ignored'],
      [2, 'ignored'],
      [3, 'ignored'],
    ]);
    expect(parsed.problems[0].message).toMatch(/^invalid YAML/);
    expect(parsed.problems[1].message).toBe('document is not an object');
    expect(parsed.problems[2].message).toMatch(/Infinity/);
    expect(parseDocuments('c.json', '{"kind": ').problems[0].message).toMatch(/^invalid JSON/);
  });

  it('refuses duplicate keys and alias bombs, keeps __proto__ as data', () => {
    expect(parseDocuments('d.yaml', 'a: 1\na: 2\n').problems).toHaveLength(1);
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join('\n');
    expect(parseDocuments('bomb.yaml', bomb).problems).toHaveLength(1);
    const proto = parseDocuments('p.yaml', 'kind: A\n__proto__: {polluted: true}\n').documents[0].value;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(({} as any).polluted).toBeUndefined();
    expect(Object.keys(proto)).toContain('__proto__');
  });

  it('refuses documents nested deeper than 1000 levels', () => {
    const deep = 'a: ' + '['.repeat(1100) + ']'.repeat(1100);
    expect(parseDocuments('deep.yaml', deep).problems).toHaveLength(1);
    expect(parseDocuments('deep.json', '{"a":' + '['.repeat(1100) + ']'.repeat(1100) + '}').problems).toHaveLength(1);
  });

  it('reads YAML as kubectl does (sigs.k8s.io/yaml: go-yaml v2, YAML 1.1)', () => {
    const text = `kind: A
spec:
  defaultMode: 0400
  hex: 0x1F
  flags: [yes, no, on, off, y, n, "no"]
  base: &base {team: platform, tier: db}
  labels:
    <<: *base
    tier: web
  date: 2001-12-14
`;
    const parsed = parseDocuments('k.yaml', text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.documents[0].value.spec).toEqual({
      defaultMode: 256,
      hex: 31,
      flags: [true, false, true, false, true, false, 'no'],
      base: { team: 'platform', tier: 'db' },
      labels: { team: 'platform', tier: 'web' },
      date: '2001-12-14',
    });
  });

  it('keeps float literals through merges and aliases', () => {
    const y = parseDocuments('f.yaml', 'kind: A\nb: &b {r: 1.0, i: 2}\nspec:\n  <<: *b\n  i: 3.0\n  l: [*b]\n').documents[0].value as any;
    expect(isFloatLiteral(y.spec, 'r')).toBe(true);
    expect(isFloatLiteral(y.spec, 'i')).toBe(true);
    expect(isFloatLiteral(y.spec.l[0], 'r')).toBe(true);
    expect(isFloatLiteral(y.spec.l[0], 'i')).toBe(false);
  });

  it('refuses a key written twice, also when two spellings resolve to one key (on / true), with its line', () => {
    const twice = parseDocuments('d.yaml', 'kind: A\nmetadata:\n  a: 1\n  a: 2\n');
    expect(twice.problems[0].message).toBe('invalid YAML: Map keys must be unique: key "a" already set in map at line 4, column 3:\n\n  a: 2\n  ^\n');
    expect(parseDocuments('d.yaml', 'kind: A\nspec: {on: 1, true: 2}\n').problems[0].message).toMatch(/^invalid YAML: Map keys must be unique: key "true" already set in map at line 2, column 15/);
    // A key a merge brought in is not written twice: the explicit one replaces it.
    expect(parseDocuments('d.yaml', 'kind: A\nb: &b {x: 1}\nspec: {<<: *b, x: 2}\n').documents[0].value.spec).toEqual({ x: 2 });
  });

  it('a broken value names its line and the other documents still load', () => {
    const parsed = parseDocuments('e.yaml', 'kind: A\n---\nkind: B\nspec:\n  mode: !!int abc\n---\nkind: C\nx: *missing\n---\nkind: D\n');
    expect(parsed.documents.map((d) => d.value.kind)).toEqual(['A', 'D']);
    expect(parsed.problems.map((p) => [p.index, p.message.split(':\n')[0]])).toEqual([
      [1, 'invalid YAML: cannot decode !!str `abc` as a !!int at line 5, column 15'],
      [2, "invalid YAML: unknown anchor 'missing' referenced at line 8, column 4"],
    ]);
  });

  it('bounds aliasing as go-yaml v2 does: many uses of an anchor load, a document made of aliases does not', () => {
    const many = `kind: A\nx: &v {a: 1}\nlist: [${Array.from({ length: 500 }, () => '*v').join(', ')}]\n`;
    expect((parseDocuments('m.yaml', many).documents[0].value.list as unknown[]).length).toBe(500);
    const bomb = ['kind: A', 'a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++) bomb.push(`${'bcdefghij'[i]}: &${'bcdefghij'[i]} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(', ')}]`);
    expect(parseDocuments('bomb.yaml', bomb.join('\n')).problems[0].message).toMatch(/^invalid YAML: document contains excessive aliasing at line \d+/);
  });

  it('a block scalar that ends the file keeps its line break (kubectl\'s YAMLReader ends every line)', () => {
    const parsed = parseDocuments('b.yaml', 'kind: A\n---\nkind: B\nx: |\n  t');
    expect(parsed.documents.map((d) => d.value.x)).toEqual([undefined, 't\n']);
  });
});
