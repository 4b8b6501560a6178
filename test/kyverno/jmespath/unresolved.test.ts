/**
 * Kyverno fork semantics for missing keys (kyverno.md §7 "Unresolved"): a missing key in a bare field
 * access is an error; a field on null or on a non-object is null; missing keys are tolerated inside
 * function arguments, comparisons, `||`, the left of `&&`, `!`, pipes, projections, filters and
 * multi-selects.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/json/index.js';
import { evaluate, isUnresolvedError, search, UnresolvedKeyError } from '../../../src/kyverno/jmespath/index.js';

const request: JsonValue = {
  request: {
    operation: 'CREATE',
    object: {
      metadata: { name: 'web', labels: { app: 'web' }, annotations: null },
      spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b' }] },
    },
  },
};

const errors: [string, string][] = [
  ['request.object.metadata.labels.team', 'team'],
  ['request.object.metadata.namespace', 'namespace'],
  ['request.object.status.phase', 'status'],
  ['request.object.spec.initContainers[0].name', 'initContainers'],
  ['request.object.status.conditions[*].type', 'status'], // the sub-expression fails before the projection
  ['missing', 'missing'],
  ['request.object.metadata.labels.team | @', ''], // pipes tolerate: see below (not an error)
  ['(request.object.metadata.labels.team)', 'team'],
  ['`true` && request.object.metadata.labels.team', 'team'], // only the left side of && is tolerant
  ['request.object.metadata.labels."app.kubernetes.io/name"', 'app.kubernetes.io/name'],
];

const values: [string, unknown][] = [
  // present keys
  ['request.object.metadata.labels.app', 'web'],
  // fields on null or on non-objects are null
  ['request.object.metadata.annotations.foo', null],
  ['request.object.metadata.name.foo', null],
  ['request.object.spec.containers.foo', null],
  ['request.object.spec.containers[5].name', null],
  // function arguments
  ["to_string(request.object.metadata.labels.team)", 'null'],
  ["length(request.object.spec.initContainers || `[]`)", 0],
  ['not_null(request.object.metadata.labels.team, `"none"`)', 'none'],
  // comparisons
  ["request.object.metadata.labels.team == 'x'", false],
  ["request.object.metadata.labels.team != 'x'", true],
  ['request.object.metadata.labels.team == `null`', true],
  ['request.object.metadata.labels.team < `1`', null],
  // || (both sides), && (left side), !
  ["request.object.metadata.labels.team || ''", ''],
  ["request.object.metadata.labels.team || request.object.metadata.labels.owner", null],
  ['request.object.metadata.labels.team && `true`', null],
  ['!(request.object.metadata.labels.team)', true],
  ['!request.object.metadata.labels.team', null], // `!` binds tighter than `.`: ((!request).object)… is null
  // the field a projection starts from is tolerated
  ['request.object.spec.initContainers[*].name', null],
  // pipes
  ['request.object.metadata.labels.team | @', null],
  ['request.object | metadata.labels.team', null],
  // projections and filters
  ['request.object.spec.containers[*].image', ['nginx']],
  ['request.object.spec.containers[].image', ['nginx']],
  ["request.object.spec.containers[?image == 'nginx'].name", ['a']],
  ['request.object.spec.containers[?image].name', ['a']],
  ['request.object.metadata.*.team', []],
  ['missing[*].x', null],
  ['missing[?x]', null],
  ['missing[]', null],
  ['missing.*', null],
  // multi-selects
  ['[request.object.metadata.labels.team, request.object.metadata.name]', [null, 'web']],
  ['{team: request.object.metadata.labels.team}', { team: null }],
];

describe('unresolved keys', () => {
  for (const [expr, key] of errors) {
    if (key === '') continue;
    it(`error: ${expr}`, () => {
      const r = evaluate(expr, request);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(isUnresolvedError(r.error)).toBe(true);
      expect(r.error).toBeInstanceOf(UnresolvedKeyError);
      expect((r.error as UnresolvedKeyError).key).toBe(key);
      expect(r.error.message).toBe(`Unknown key "${key}" in path`);
    });
  }
  for (const [expr, value] of values) {
    it(`value: ${expr}`, () => {
      expect(evaluate(expr, request)).toEqual({ ok: true, value });
    });
  }
  it('search throws the error class; other errors are not unresolved', () => {
    expect(() => search('request.x', request)).toThrow(UnresolvedKeyError);
    const other = evaluate('length(`1`)', request);
    expect(other.ok).toBe(false);
    if (!other.ok) expect(isUnresolvedError(other.error)).toBe(false);
    expect(isUnresolvedError(new Error('Unknown key "x" in path'))).toBe(false);
  });
  it('keys inherited from Object.prototype are missing, not found', () => {
    expect(evaluate('constructor', {}).ok).toBe(false);
    expect(evaluate('toString', { a: 1 }).ok).toBe(false);
    expect(evaluate('"__proto__"', JSON.parse('{"__proto__": 5}'))).toEqual({ ok: true, value: 5 });
  });
});
