/**
 * `{{ }}` variables and `$()` references where Kyverno's own code (pkg/engine/variables/vars.go,
 * pkg/engine/jsonutils/traverse.go) decides a corner the vectors do not reach.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { JsonContext } from '../../src/kyverno/context/context.js';
import { kyvernoQuery } from '../../src/kyverno/context/query.js';
import { substituteAll } from '../../src/kyverno/context/variables.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const data: JsonObject = {
  request: { operation: 'CREATE', object: { metadata: { name: 'web', labels: { app: 'shop', empty: null } } } },
};

const subst = (document: JsonValue) => substituteAll(document, { ctx: new JsonContext(kyvernoQuery, data), isDelete: false });

describe('empty variables', () => {
  it('an empty or blank expression is refused as Kyverno\'s context.Query refuses it', () => {
    // pkg/engine/context/evaluate.go: query = strings.TrimSpace(query); if query == "" → "invalid query (nil)"
    expect(() => subst({ a: '{{ }}' })).toThrow('failed to resolve  at path /a: invalid query (nil)');
    expect(() => subst({ a: 'x-{{}}' })).toThrow('invalid query (nil)');
    expect(() => subst({ a: '{{- }}' })).toThrow('invalid query (nil)');
  });
});

describe('shallow variables end the scanning (substituteVariablesIfAny)', () => {
  const ctx = { ...data, s: 'str' };
  const sub = (document: JsonValue) => substituteAll(document, { ctx: new JsonContext(kyvernoQuery, ctx), isDelete: false });
  it('after a pass whose last variable is {{- }}, the string is not scanned again', () => {
    // The first scan cannot see a variable right after another (its prefix character is taken), and
    // an outer variable only appears once the inner one is replaced: both wait for a second scan.
    expect(sub('{{- s }}{{ s }}')).toBe('str{{ s }}');
    expect(sub('a{{- s }}{{ s }}')).toBe('astr{{ s }}');
    expect(sub("{{ to_upper('{{- s }}') }}")).toBe("{{ to_upper('str') }}");
  });
  it('a pass whose last variable is not shallow scans again', () => {
    expect(sub('{{ s }}{{- s }}')).toBe('strstr');
    expect(sub('{{- s }} {{ s }}')).toBe('str str');
    expect(sub('{{- s }}{{ s }}{{ s }}')).toBe('strstrstr');
    expect(sub("{{ to_upper('{{ s }}') }}")).toBe('STR');
  });
});

describe('map keys', () => {
  it('a key whose variable resolves to null keeps its own text (traverseObject: newKey == nil)', () => {
    expect(subst({ metadata: { '{{ request.object.metadata.labels.empty }}': 'x', b: 'y' } })).toEqual({
      metadata: { '{{ request.object.metadata.labels.empty }}': 'x', b: 'y' },
    });
    expect(subst({ "{{ `null` }}": '{{ request.object.metadata.name }}' })).toEqual({ '{{ `null` }}': 'web' });
  });
  it('a key resolving to another non-string is still an error', () => {
    expect(() => subst({ '{{ `1` }}': 'x' })).toThrow('expected string after substituting variables in key "{{ `1` }}"');
  });
});

describe('$() references (substituteReferencesIfAny, resolveReference)', () => {
  it('resolve a string; an operator inside the parentheses is kept in front (vars_test TestActualizePattern_*)', () => {
    const pattern = {
      spec: { containers: [{ name: '*', resources: { requests: { memory: '$(<=./../../limits/memory)' }, limits: { memory: '2048Mi' } } }] },
    };
    expect(subst(pattern)).toEqual({
      spec: { containers: [{ name: '*', resources: { requests: { memory: '<=2048Mi' }, limits: { memory: '2048Mi' } } }] },
    });
  });
  it('a number needs an operator, and is then printed with %f', () => {
    expect(() => subst({ spec: { max: 10, floor: '$(../max)' } })).toThrow('NotResolvedReferenceErr,reference $(../max) not resolved at path /spec/floor');
    expect(subst({ spec: { max: 10, floor: '$(>=../max)', half: '$(<../x)', x: 0.0078125 } })).toEqual({
      spec: { max: 10, floor: '>=10.000000', half: '<0.007812', x: 0.0078125 },
    });
    expect(subst({ spec: { big: 1e22, r: '$(!../big)' } })).toEqual({ spec: { big: 1e22, r: '!10000000000000000000000.000000' } });
  });
  it('other values are errors, with Kyverno\'s texts', () => {
    expect(() => subst({ spec: { a: true, r: '$(../a)' } })).toThrow('NotResolvedReferenceErr,reference $(../a) not resolved at path /spec/r');
    expect(() => subst({ spec: { a: true, r: '$(>../a)' } })).toThrow(
      'failed to resolve $(>../a) at path /spec/r: incorrect expression: operator > does not match with value true',
    );
    expect(() => subst({ spec: { a: null, r: '$(../a)' } })).toThrow('got nil resolved variable $(../a) at path /spec/r: <nil>');
    expect(() => subst({ a: '$(missing)' })).toThrow('got nil resolved variable $(missing) at path /a: <nil>');
  });
  it('a reference runs greedily to the last ) before a space (RegexReferences)', () => {
    expect(() => subst({ spec: { a: 'x', b: 'y', r: '$(../a)-$(../b)' } })).toThrow('got nil resolved variable $(../a)-$(../b) at path /spec/r: <nil>');
    expect(subst({ spec: { a: 'x', b: 'y', r: '$(../a) $(../b)' } })).toEqual({ spec: { a: 'x', b: 'y', r: 'x y' } });
    // strings.Trim(reference, "$()") takes every surrounding ) off
    expect(subst({ spec: { a: 'x', r: '($(../a))' } })).toEqual({ spec: { a: 'x', r: '(x' } });
  });
  it('an absolute path is used as written; a relative one is joined and cleaned; anchors are ignored', () => {
    expect(subst({ '(spec)': { a: 'x', r: '$(/spec/a)' }, m: { s: '$(./.././../spec/a)' } })).toEqual({ '(spec)': { a: 'x', r: 'x' }, m: { s: 'x' } });
    // The referencing string's own path keeps its anchors, the document's paths do not: from inside
    // `(spec)` a relative reference names `/(spec)/a`, which nothing matches.
    expect(() => subst({ '(spec)': { a: 'x', s: '$(../a)' } })).toThrow('got nil resolved variable $(../a) at path /(spec)/s');
    expect(() => subst({ spec: { a: 'x', r: '$(/spec/./a)' } })).toThrow('got nil resolved variable $(/spec/./a) at path /spec/r');
  });
  it('only a complete \\$(…) is an escape (RegexEscpReferences)', () => {
    expect(subst({ a: '\\$(NODE_NAME)/postgres/\\$(POD_NAME)', b: 'echo \\$(HOME', c: '\\${X}' })).toEqual({
      a: '$(NODE_NAME)/postgres/$(POD_NAME)',
      b: 'echo \\$(HOME',
      c: '\\${X}',
    });
  });
  it('a long run of $( is scanned in linear time', () => {
    const started = Date.now();
    expect(subst({ a: '$('.repeat(200_000), b: '\\$('.repeat(200_000) })).toEqual({ a: '$('.repeat(200_000), b: '\\$('.repeat(200_000) });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('variable context entries (loaders/variable.go)', () => {
  const run = async (variable: JsonObject, use = '{{ v }}') => {
    const policy = clusterPolicy('ctx', [
      { name: 'r', context: [{ name: 'v', variable }], mutate: { patchStrategicMerge: { metadata: { labels: { x: use } } } } },
    ]);
    return (await runKyvernoPolicies([compiled(policy)], { request: podRequest(pod('web', ['app'])) })).policies[0].rules[0];
  };
  it('a failed query of the value names the path and the value as Go prints it', async () => {
    const rule = await run({ value: { a: 1, b: ['x'] }, jmesPath: 'c' });
    expect(rule.message).toContain('failed to apply jmespath c to variable map[a:1 b:[x]]: Unknown key "c" in path');
  });
  it('a failed query of the context reads as context.Query reports it', async () => {
    const rule = await run({ jmesPath: 'request.object.metadata.nope' });
    expect(rule.message).toContain('failed to apply jmespath request.object.metadata.nope to variable <nil>: JMESPath query failed: Unknown key "nope" in path');
  });
  it('a null outcome', async () => {
    const rule = await run({ value: { a: null }, jmesPath: 'a' });
    expect(rule.message).toContain('failed to add context entry for variable v since it evaluated to nil');
  });
  it('the default stands in for a failed query', async () => {
    const rule = await run({ jmesPath: 'request.object.metadata.nope', default: 'dflt' });
    expect(rule.status).toBe('applied');
  });
});
