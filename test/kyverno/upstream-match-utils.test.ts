/**
 * Kyverno's pkg/utils/match tables (kyverno/kyverno @ 111e07bb: kind_test.go Test_CheckKind,
 * annotations_test.go TestCheckAnnotations, labels_test.go TestCheckSelector, subjects_test.go
 * TestCheckSubjects, a selection), inputs and expectations copied as data, run through the engine's public
 * entry points: a rule "matches" when it runs and applies its patch. Kyverno's Go functions check one
 * field each; here the other fields of the match block select everything.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

interface Subject {
  object?: JsonObject;
  gvk?: Gvk;
  subResource?: string;
  userInfo?: { username: string; groups: string[] };
}

async function applies(resources: JsonObject, s: Subject, subjects?: JsonObject[]): Promise<boolean> {
  const filter: JsonObject = { resources };
  if (subjects) filter.subjects = subjects;
  const policy: JsonObject = {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      background: false,
      rules: [{ name: 'r', match: { any: [filter] }, mutate: { patchStrategicMerge: { metadata: { labels: { matched: 'yes' } } } } }],
    },
  };
  const compiled = compileKyvernoPolicy(policy);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const gvk = s.gvk ?? { group: '', version: 'v1', kind: 'ConfigMap' };
  const object: JsonObject = s.object ?? {
    apiVersion: gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version,
    kind: gvk.kind,
    metadata: { name: 'n', namespace: 'd' },
  };
  const request: AdmissionRequest = {
    uid: 'u',
    kind: gvk,
    resource: { group: gvk.group, version: gvk.version, resource: `${gvk.kind.toLowerCase()}s` },
    ...(s.subResource ? { subResource: s.subResource } : {}),
    name: 'n',
    namespace: 'd',
    operation: 'UPDATE',
    userInfo: s.userInfo ?? { username: 'u', groups: [] },
    object,
    oldObject: object,
  };
  const result = await runKyvernoPolicies([compiled.policy], { request, clusterRoles: [], roles: [] });
  const rules = result.policies.flatMap((p) => p.rules);
  expect(rules.filter((r) => r.status === 'error')).toEqual([]);
  return rules.some((r) => r.status === 'applied');
}

const configMap = (meta: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', namespace: 'd', ...meta } });

describe('Test_CheckKind', () => {
  const g = (kind: string, group: string, version: string): Gvk => ({ group, version, kind });
  const cases: [string[], Gvk, string, boolean][] = [
    [['*'], g('Deployment', '', 'v1'), '', true],
    [['Pod'], g('Pod', '', 'v1'), '', true],
    [['v1/Pod'], g('Pod', '', 'v1'), '', true],
    [['tekton.dev/v1beta1/TaskRun'], g('TaskRun', 'tekton.dev', 'v1beta1'), '', true],
    [['tekton.dev/*/TaskRun'], g('TaskRun', 'tekton.dev', 'v1alpha1'), '', true],
    [['v1/Pod'], g('Pod', '', 'v1'), 'status', false],
    // allowEphemeralContainers: true in Kyverno's mutate path.
    [['v1/Pod'], g('Pod', '', 'v1'), 'ephemeralcontainers', true],
    [['postgresdb'], g('postgresdb', 'acid.zalan.do', 'v1'), '', true],
    [['Postgresdb'], g('postgresdb', 'acid.zalan.do', 'v1'), '', false],
    [['networking.k8s.io/v1/NetworkPolicy/status'], g('NetworkPolicy', 'networking.k8s.io', 'v1'), 'status', true],
    [['v1/Pod.status'], g('Pod', '', 'v1'), 'status', true],
    [['*/Pod.eviction'], g('Pod', '', 'v1'), 'eviction', true],
    [['v1alpha1/Pod.eviction'], g('Pod', '', 'v1'), 'eviction', false],
  ];
  it.each(cases.map((c) => [`${c[0].join(',')} ${c[1].group}/${c[1].version}/${c[1].kind} ${c[2]}`, ...c] as const))(
    '%s',
    async (_, kinds, gvk, subResource, want) => {
      expect(await applies({ kinds }, { gvk, subResource })).toBe(want);
    },
  );
});

describe('TestCheckAnnotations', () => {
  const cases: [Record<string, string>, Record<string, string>, boolean][] = [
    [{ 'test/*': '*' }, {}, false],
    [{ 'test/*': '*' }, { 'tes1/test': '*' }, false],
    [{ 'test/*': '*' }, { 'test/test': '*' }, true],
    [{ 'test/*': '*' }, { 'test/bar': 'foo' }, true],
    [{ 'test/b*': '*' }, { 'test/bar': 'foo' }, true],
    [{ 'test/b*': '*', 'test2/*': '*' }, { 'test/bar': 'foo' }, false],
    [{ 'test/b*': '*', 'test2/*': '*' }, { 'test/bar': 'foo', 'test2/123': 'bar' }, true],
    [{ 'test/b*': '*', 'test2/*': '*' }, { 'test/bar': 'foo', 'test2/123': 'bar', 'test3/123': 'bar2' }, true],
  ];
  it.each(cases.map((c) => [`${JSON.stringify(c[0])} on ${JSON.stringify(c[1])}`, ...c] as const))('%s', async (_, expected, actual, want) => {
    expect(await applies({ kinds: ['ConfigMap'], annotations: expected }, { object: configMap({ annotations: actual }) })).toBe(want);
  });
});

describe('TestCheckSelector', () => {
  const both = { 'test.io/scale': 'foo', 'test.io/functional': 'bar' };
  const cases: [Record<string, string>, Record<string, string>, boolean][] = [
    [{ 'test.io/*': 'bar' }, { foo: 'bar' }, false],
    [{ 'scale.test.io/*': 'bar' }, { foo: 'bar' }, false],
    [{ 'test.io/*': 'bar' }, both, true],
    [{ 'test.io/*': '*' }, both, true],
    [{ 'test.io/*': 'a*' }, both, false],
    [{ 'test.io/scale': 'f??' }, both, true],
    [{ '*': '*' }, both, true],
    [{ 'test.io/functional': 'foo' }, both, false],
    [{ '*': '*' }, {}, false],
    // An invalid label key: CheckSelector errors, the filter does not match.
    [{ 'abc/def/ghi': '*' }, {}, false],
  ];
  it.each(cases.map((c) => [`${JSON.stringify(c[0])} on ${JSON.stringify(c[1])}`, ...c] as const))('%s', async (_, matchLabels, labels, want) => {
    expect(await applies({ kinds: ['ConfigMap'], selector: { matchLabels } }, { object: configMap({ labels }) })).toBe(want);
  });
});

describe('TestCheckSubjects', () => {
  const cases: [string, JsonObject[], string, string[], boolean][] = [
    ['ServiceAccount exact match', [{ kind: 'ServiceAccount', name: 'default', namespace: 'kube-system' }], 'system:serviceaccount:kube-system:default', [], true],
    ['ServiceAccount no match - different namespace', [{ kind: 'ServiceAccount', name: 'default', namespace: 'kube-system' }], 'system:serviceaccount:default:default', [], false],
    ['ServiceAccount no match - different name', [{ kind: 'ServiceAccount', name: 'admin', namespace: 'kube-system' }], 'system:serviceaccount:kube-system:default', [], false],
    ['ServiceAccount wildcard name match', [{ kind: 'ServiceAccount', name: '*', namespace: 'kube-system' }], 'system:serviceaccount:kube-system:any-sa', [], true],
    ['ServiceAccount wildcard namespace via pattern', [{ kind: 'ServiceAccount', name: 'kyverno', namespace: 'kyverno*' }], 'system:serviceaccount:kyverno-system:kyverno', [], true],
    ['User exact match', [{ kind: 'User', name: 'alice' }], 'alice', [], true],
    ['User no match', [{ kind: 'User', name: 'alice' }], 'bob', [], false],
    ['User wildcard match', [{ kind: 'User', name: 'admin-*' }], 'admin-alice', [], true],
    ['User wildcard no match', [{ kind: 'User', name: 'admin-*' }], 'user-alice', [], false],
    ['Group exact match', [{ kind: 'Group', name: 'system:masters' }], 'admin', ['system:authenticated', 'system:masters'], true],
    ['Group no match', [{ kind: 'Group', name: 'system:masters' }], 'user', ['system:authenticated'], false],
    ['Group wildcard match', [{ kind: 'Group', name: 'system:*' }], 'user', ['developers', 'system:authenticated'], true],
    ['Group empty groups in userInfo', [{ kind: 'Group', name: 'admin' }], 'user', [], false],
  ];
  it.each(cases)('%s', async (_, subjects, username, groups, want) => {
    expect(await applies({ kinds: ['ConfigMap'] }, { userInfo: { username, groups } }, subjects)).toBe(want);
  });
});
