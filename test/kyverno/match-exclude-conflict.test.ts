/**
 * Kyverno's Rule.ValidateMatchExcludeConflict ("Rule is matching an empty set"): the cases of its unit
 * test Test_doesMatchExcludeConflict (api/kyverno/v1/rule_test.go), as data, with Go's case-insensitive
 * JSON keys written as the API spells them (`clusterroles` → `clusterRoles`, `Namespace` → `namespace`)
 * and its placeholder subjects and roles made valid (a subject kind is User, Group or ServiceAccount, a
 * role `namespace:name`), run as mutate rules through compileKyvernoPolicy; then the quirks of its `any`
 * and zero-value paths.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';

const EMPTY_SET = 'Rule is matching an empty set (Kyverno refuses the policy)';

function conflicts(match: JsonObject, exclude?: JsonObject): boolean {
  const rule: JsonObject = { name: 'r', match, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } };
  if (exclude !== undefined) rule.exclude = exclude;
  const result = compileKyvernoPolicy({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { background: false, rules: [rule] } });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const found = result.findings.filter((f) => f.message === EMPTY_SET);
  expect(found.every((f) => f.path === 'spec.rules[0]' && f.kind === 'required')).toBe(true);
  return found.length > 0;
}

const full = (): JsonObject => ({
  resources: {
    kinds: ['Pod', 'Namespace'],
    name: 'something',
    namespaces: ['something', 'something1'],
    selector: { matchLabels: { memory: 'high' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['database'] }] },
  },
  subjects: [
    { name: 'something', kind: 'User', apiGroup: 'rbac.authorization.k8s.io' },
    { name: 'something1', kind: 'ServiceAccount', namespace: 'something1' },
  ],
  clusterRoles: ['something', 'something1'],
  roles: ['ns:something', 'ns:something1'],
});

/** `full()` with one change applied. */
function changed(edit: (b: JsonObject & { resources: JsonObject }) => void): JsonObject {
  const block = full() as JsonObject & { resources: JsonObject };
  edit(block);
  return block;
}

describe('Test_doesMatchExcludeConflict (upstream cases)', () => {
  it('Same match and exclude', () => expect(conflicts(full(), full())).toBe(true));
  it('Failed to exclude kind', () => expect(conflicts(full(), changed((b) => (b.resources.kinds = ['Namespace'])))).toBe(false));
  it('Failed to exclude name', () => expect(conflicts(full(), changed((b) => (b.resources.name = 'something-*')))).toBe(false));
  it('Failed to exclude namespace', () => expect(conflicts(full(), changed((b) => (b.resources.namespaces = ['something3', 'something1'])))).toBe(false));
  it('Failed to exclude labels', () => expect(conflicts(full(), changed((b) => ((b.resources.selector as JsonObject).matchLabels = { memory: 'higha' })))).toBe(false));
  it('Failed to exclude expression', () =>
    expect(conflicts(full(), changed((b) => ((b.resources.selector as JsonObject).matchExpressions = [{ key: 'tier', operator: 'In', values: ['databases'] }])))).toBe(false));
  it('Failed to exclude subjects', () => expect(conflicts(full(), changed((b) => ((b.subjects as JsonObject[])[0].name = 'something2')))).toBe(false));
  it('Failed to exclude clusterroles', () => expect(conflicts(full(), changed((b) => (b.clusterRoles = ['something3', 'something1'])))).toBe(false));
  it('Failed to exclude roles', () => expect(conflicts(full(), changed((b) => (b.roles = ['ns:something3', 'ns:something1'])))).toBe(false));
  const simpleMatch = (name: string) => ({ resources: { kinds: ['Pod', 'Namespace'], name, namespaces: ['something', 'something1'] } });
  const simpleExclude = { resources: { kinds: ['Pod', 'Namespace', 'Job'], name: 'some*', namespaces: ['something', 'something1', 'something2'] } };
  it('simple', () => expect(conflicts(simpleMatch('something'), simpleExclude)).toBe(true));
  it('simple - fail', () => expect(conflicts(simpleMatch('somxething'), simpleExclude)).toBe(false));
  it('empty case', () => expect(conflicts({ resources: { kinds: ['Pod'], selector: { matchLabels: { 'allow-deletes': 'false' } } } }, { clusterRoles: ['random'] })).toBe(false));
});

describe('the any and zero-value paths', () => {
  const pods = { resources: { kinds: ['Pod'] } };
  const system = { resources: { kinds: ['Pod'], namespaces: ['kube-system'] } };
  it('any on both sides: a filter written alike on both sides', () => {
    expect(conflicts({ any: [pods] }, { any: [system, pods] })).toBe(true);
    expect(conflicts({ any: [pods] }, { any: [system] })).toBe(false);
    // written alike as Go decodes it: an empty list is not an absent one
    expect(conflicts({ any: [pods] }, { any: [{ resources: { kinds: ['Pod'], names: [] } }] })).toBe(false);
  });
  it('all on either side, no exclude, or an exclude that decodes to nothing: no check', () => {
    expect(conflicts({ all: [pods] }, { all: [pods] })).toBe(false);
    expect(conflicts(pods)).toBe(false);
    expect(conflicts(pods, {})).toBe(false);
    expect(conflicts(pods, { resources: {} })).toBe(false);
  });
  it('operations are never compared; names conflict by wildcard', () => {
    expect(conflicts({ resources: { kinds: ['Pod'], operations: ['CREATE'] } }, { resources: { kinds: ['Pod'], operations: ['UPDATE'] } })).toBe(true);
    expect(conflicts({ resources: { kinds: ['Pod'], names: ['web-1', 'db'] } }, { resources: { kinds: ['Job'], names: ['web-*'] } })).toBe(true);
    expect(conflicts({ resources: { kinds: ['Pod'], names: ['db'] } }, { resources: { kinds: ['Pod'], names: ['web-*'] } })).toBe(false);
  });
});
