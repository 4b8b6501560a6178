/**
 * Patch texts parsed once with placeholders must read exactly as the text path (substitute the text,
 * then parse it) — or decline, so that the text path decides.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { JsonContext } from '../../src/kyverno/context/context.js';
import { parsePatchText } from '../../src/kyverno/patchers/json6902.js';
import { compilePatchTemplate, instantiate } from '../../src/kyverno/patchers/patch-template.js';
import { kyvernoQuery } from '../../src/kyverno/context/query.js';
import { substituteString } from '../../src/kyverno/context/variables.js';

const texts = [
  '- op: add\n  path: /metadata/labels/x\n  value: {{ v }}',
  '- op: add\n  path: /metadata/labels/x\n  value: "{{ v }}"',
  "- op: add\n  path: /metadata/labels/x\n  value: '{{ v }}'",
  '- op: add\n  path: /metadata/labels/x\n  value: pre-{{ v }}-post',
  '- op: add\n  path: /spec/containers/{{ i }}/env/-\n  value: {name: NAME, value: "{{ v }}"}',
  '- op: add\n  path: /spec/list\n  value: [a, {{ v }}, b]',
  '- op: add\n  path: /spec/x\n  value: {a: {{ v }}}',
  '- {op: add, path: "/spec/{{ v }}", value: 1}',
  '- op: add\n  path: /metadata/annotations/{{ v }}\n  value: "1"',
  '- op: add\n  path: /spec/n\n  value: {{ i }}{{ i }}',
];

const values: JsonValue[] = [
  'plain', 'with space', 'a: b', 'a #b', '#x', '- x', 'yes', 'on', 'null', '', '0755', '12', '1.5', '1e3', 'true',
  "it's", 'say "hi"', 'back\\slash', 'a,b', '[x]', '{"a":1}', '{"a": 1}', 'line\nbreak', ' lead', 'trail ', '*alias',
  7, 0, -3, 1.25, true, false, null, { k: 'v', n: 1 }, ['x', 2], { 'a<b': '&' },
];

describe('patch templates read as the text path', () => {
  for (const text of texts) {
    const template = compilePatchTemplate(text);
    it(text.replace(/\n/g, '⏎'), () => {
      expect(template).toBeDefined();
      for (const v of values) {
        const scope = { ctx: new JsonContext(kyvernoQuery, { v, i: 1 } as JsonObject), isDelete: false };
        let expected: JsonValue | Error;
        try {
          expected = parsePatchText(substituteString(text, ['patchesJson6902'], scope));
        } catch (e) {
          expected = e as Error;
        }
        const fast = instantiate(template!, ['patchesJson6902'], scope);
        if (fast === undefined) continue; // declined: the text path decides
        expect(expected, `${JSON.stringify(v)} parsed by the text path`).not.toBeInstanceOf(Error);
        expect(fast, `${JSON.stringify(v)}`).toEqual(expected);
      }
    });
  }

  it('takes the fast path for ordinary values', () => {
    const template = compilePatchTemplate(texts[4])!;
    const scope = { ctx: new JsonContext(kyvernoQuery, { v: 'web', i: 0 }), isDelete: false };
    expect(instantiate(template, ['patchesJson6902'], scope)).toEqual([
      { op: 'add', path: '/spec/containers/0/env/-', value: { name: 'NAME', value: 'web' } },
    ]);
  });

  it('leaves to the text path what it cannot read exactly', () => {
    for (const text of ['{{ v }}', '- op: add\n  path: /x\n  value: |\n    {{ v }}', '- op: add\n  path: $(x)\n  value: 1', '[{"op": "add", "path": "/{{ v }}", "value": 1}]']) {
      expect(compilePatchTemplate(text), text).toBeUndefined();
    }
  });

  it('parses a text without variables once', () => {
    const template = compilePatchTemplate('- op: remove\n  path: /spec/x')!;
    expect(template.slots).toEqual([]);
    expect(instantiate(template, [], { ctx: new JsonContext(kyvernoQuery, {}), isDelete: false })).toEqual([{ op: 'remove', path: '/spec/x' }]);
  });
});

describe('YAML 1.1 in patch text', () => {
  it('reads yes/on/N as booleans and 0755 as octal, as sigs.k8s.io/yaml does', () => {
    expect(parsePatchText('- {op: add, path: /a, value: yes}\n- {op: add, path: /b, value: N}\n- {op: add, path: /c, value: 0755}\n- {op: add, path: /d, value: "yes"}')).toEqual([
      { op: 'add', path: '/a', value: true },
      { op: 'add', path: '/b', value: false },
      { op: 'add', path: '/c', value: 493 },
      { op: 'add', path: '/d', value: 'yes' },
    ]);
  });
  it('keys become strings and dates stay text', () => {
    expect(parsePatchText('- op: add\n  path: /x\n  value: {on: 1, 2024-01-02: d, t: 2024-01-02}')).toEqual([
      { op: 'add', path: '/x', value: { true: 1, '2024-01-02': 'd', t: '2024-01-02' } },
    ]);
  });
  it('JSON text is read when the first character is [', () => {
    expect(parsePatchText('[{"op": "remove", "path": "/x"}]')).toEqual([{ op: 'remove', path: '/x' }]);
  });
});
