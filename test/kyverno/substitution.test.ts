/** `{{ }}` variables and `$()` references (spec §7), beyond the substitute vectors. */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { JsonContext } from '../../src/kyverno/context/context.js';
import { KyvernoRuleError } from '../../src/kyverno/errors.js';
import { kyvernoQuery } from '../../src/kyverno/context/query.js';
import { substituteAll } from '../../src/kyverno/context/variables.js';

const data: JsonObject = {
  request: {
    operation: 'CREATE',
    object: {
      metadata: { name: 'web', labels: { app: 'shop', 'app.kubernetes.io/name': 'web' } },
      spec: { replicas: 3, map: { b: 2, a: '<x>' }, list: [1, 'two'] },
    },
  },
  hostile: '{{hostile}}',
  template: '{{ request.object.metadata.name }}',
};

const subst = (document: JsonValue, extra: JsonObject = {}, isDelete = false) =>
  substituteAll(document, { ctx: new JsonContext(kyvernoQuery, { ...data, ...extra }), isDelete });

describe('typing', () => {
  it('a whole-string variable keeps the JSON type', () => {
    expect(subst('{{ request.object.spec.replicas }}')).toBe(3);
    expect(subst('{{request.object.spec.map}}')).toEqual({ b: 2, a: '<x>' });
    expect(subst('{{ `null` }}')).toBeNull();
  });
  it('inside a longer string, values are inserted as Go would print them', () => {
    expect(subst('n={{ request.object.spec.replicas }}')).toBe('n=3');
    expect(subst('m={{ request.object.spec.map }}')).toBe('m={"a":"\\u003cx\\u003e","b":2}');
    expect(subst('l={{ request.object.spec.list }}')).toBe('l=[1,"two"]');
    expect(subst('{{request.object.metadata.name}}-{{request.object.metadata.labels.app}}')).toBe('web-shop');
  });
  it('map keys are substituted too', () => {
    expect(subst({ '{{ request.object.metadata.name }}': 'x' })).toEqual({ web: 'x' });
  });
  it('a key that resolves to a non-string is an error', () => {
    expect(() => subst({ '{{ request.object.spec.replicas }}': 'x' })).toThrow('expected string after substituting variables in key "{{ request.object.spec.replicas }}"');
  });
});

describe('syntax', () => {
  it('quoted identifiers and JMESPath literals with braces', () => {
    expect(subst('{{ request.object.metadata.labels."app.kubernetes.io/name" }}')).toBe('web');
    expect(subst("{{ merge(`{\"a\": 1}`, `{\"b\": 2}`) }}")).toEqual({ a: 1, b: 2 });
  });
  it('nested variables resolve innermost first', () => {
    expect(subst('{{ request.object.metadata.{{ `"name"` }} }}')).toBe('web');
  });
  it('resolved text spliced into a string is never substituted again (Kyverno re-substitutes unless shallow {{- }})', () => {
    expect(subst('x {{ template }}')).toBe('x {{ request.object.metadata.name }}');
    expect(subst('x {{- template }}')).toBe('x {{ request.object.metadata.name }}');
    // Nor are escapes in it undone, nor does it escape what follows.
    expect(subst('{{ escaped }}-{{ request.object.metadata.name }}', { escaped: '\\{{ x }}\\' })).toBe('\\{{ x }}\\-web');
    // A private-use character in the policy's own text survives the marking of resolved text.
    expect(subst('\uE000{{ template }}\uE0010\uE001')).toBe('\uE000{{ request.object.metadata.name }}\uE0010\uE001');
    // A whole-string variable's value is returned as it is.
    expect(subst('{{ template }}')).toBe('{{ request.object.metadata.name }}');
  });
  it('braces around a single variable stay text', () => {
    expect(subst('a}{{ request.object.metadata.name }}{b')).toBe('a}web{b');
    expect(subst('{{ request.object.metadata.name }}}')).toBe('web}');
    expect(subst('{ {{ request.object.spec.replicas }} }')).toBe('{ 3 }');
    expect(subst('/spec/{{ request.object.spec.replicas }}/x\\y')).toBe('/spec/3/x\\y');
  });
  it('escaped variables are left alone and unescaped', () => {
    expect(subst('\\{{ request.object.metadata.name }}')).toBe('{{ request.object.metadata.name }}');
  });
  it('a value that names itself is inserted as text, not a loop', () => {
    expect(subst('x{{ hostile }}')).toBe('x{{hostile}}');
  });
  it('strings without variables come back as the same object', () => {
    const doc = { a: ['b', { c: 'd' }] };
    expect(subst(doc)).toBe(doc);
  });
});

describe('errors', () => {
  it('an unknown key in a bare field access is an error; inside || it is not', () => {
    expect(() => subst('{{ request.object.metadata.missing }}')).toThrow(KyvernoRuleError);
    expect(() => subst('{{ request.object.metadata.missing }}')).toThrow(/Unknown key "missing" in path/);
    expect(subst("{{ request.object.metadata.missing || 'none' }}")).toBe('none');
    expect(subst('{{ to_string(request.object.metadata.missing) }}')).toBe('null');
  });
  it('errors name the expression and where it is', () => {
    expect(() => subst({ spec: { x: '{{ nope( }}' } })).toThrow(/failed to resolve nope\( at path \/spec\/x/);
  });
});

describe('{{@}} and DELETE', () => {
  it('@ reads the same place in request.object, skipping the first two segments', () => {
    expect(subst({ mutate: { patchStrategicMerge: { metadata: { labels: { app: '{{@}}' } } } } })).toEqual({
      mutate: { patchStrategicMerge: { metadata: { labels: { app: 'shop' } } } },
    });
    expect(subst({ mutate: { patchStrategicMerge: { metadata: { labels: { 'app.kubernetes.io/name': '{{ to_upper(\'{{@}}\') }}' } } } } })).toEqual({
      mutate: { patchStrategicMerge: { metadata: { labels: { 'app.kubernetes.io/name': 'WEB' } } } },
    });
  });
  it('for DELETE, request.object means request.oldObject', () => {
    const old = { request: { operation: 'DELETE', object: null, oldObject: { metadata: { name: 'gone' } } } };
    expect(subst('{{ request.object.metadata.name }}', old, true)).toBe('gone');
  });
});

describe('$() references', () => {
  it('resolve relative and absolute paths in the document, with operators kept', () => {
    // Relative to the referencing string itself: `..` is its parent map.
    const doc = { spec: { max: '10Gi', floor: '$(../max)', limit: '>=$(/spec/max)', up: '$(../../spec/max)' } };
    expect(subst(doc)).toEqual({ spec: { max: '10Gi', floor: '10Gi', limit: '>=10Gi', up: '10Gi' } });
  });
  it('a reference that does not resolve is an error', () => {
    expect(() => subst({ a: '$(missing)' })).toThrow(/got nil resolved variable \$\(missing\) at path \/a/);
  });
  it('escaped references stay', () => {
    expect(subst({ a: 'echo \\$(HOME)' })).toEqual({ a: 'echo $(HOME)' });
  });
});
