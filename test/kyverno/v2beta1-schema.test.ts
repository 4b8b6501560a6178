/**
 * kyverno.io/v2beta1 policies are refused where its schema differs from v1's
 * (api/kyverno/v2beta1/rule_types.go, common_types.go, and that version of the CRD): match and exclude
 * blocks with anything but any/all, a rule's preconditions as a list, and the deprecated operators In,
 * NotIn, Equal, NotEqual in a rule's preconditions. The same policy as kyverno.io/v1 stays accepted, and a
 * foreach entry keeps v1's types.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';

const patch = { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } };
const anyPods = { any: [{ resources: { kinds: ['Pod'] } }] };

function problems(apiVersion: string, rule: JsonObject) {
  const result = compileKyvernoPolicy({ apiVersion, kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { rules: [{ name: 'r', mutate: patch, ...rule }] } });
  return result.ok ? [] : result.problems;
}

describe('kyverno.io/v2beta1 schema', () => {
  const cases: [string, JsonObject, string][] = [
    ['a legacy match block', { match: { resources: { kinds: ['Pod'] } } }, 'spec.rules[0].match.resources'],
    ['a legacy exclude block', { match: anyPods, exclude: { resources: { namespaces: ['kube-system'] } } }, 'spec.rules[0].exclude.resources'],
    ['preconditions as a list', { match: anyPods, preconditions: [{ key: 'a', operator: 'Equals', value: 'a' }] }, 'spec.rules[0].preconditions'],
    ['a deprecated operator', { match: anyPods, preconditions: { all: [{ key: 'a', operator: 'In', value: ['a'] }] } }, 'spec.rules[0].preconditions.all[0].operator'],
    ['a deprecated spelling', { match: anyPods, preconditions: { any: [{ key: 'a', operator: 'NotEqual', value: 'b' }] } }, 'spec.rules[0].preconditions.any[0].operator'],
  ];
  for (const [what, rule, path] of cases) {
    it(`refuses ${what}, which v1 accepts`, () => {
      expect(problems('kyverno.io/v2beta1', rule).map((p) => p.path)).toEqual([path]);
      expect(problems('kyverno.io/v1', rule)).toEqual([]);
    });
  }
  it('accepts what both versions share, and v1 types in a foreach entry', () => {
    expect(problems('kyverno.io/v2beta1', { match: anyPods, preconditions: { all: [{ key: 'a', operator: 'AnyIn', value: ['a'] }] } })).toEqual([]);
    const foreach = { foreach: [{ list: 'request.object.spec.containers', preconditions: { all: [{ key: '{{ element.name }}', operator: 'In', value: ['a'] }] }, ...patch }] };
    expect(problems('kyverno.io/v2beta1', { match: anyPods, mutate: foreach })).toEqual([]);
  });
});
