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
});
