/**
 * buildPolicySetInSlices builds the same set as buildPolicySet, pausing between documents and between
 * policies compiled: the refresher builds on the thread that answers probes and reviews, and a set of
 * 3,000 MutatingAdmissionPolicies took 3 s to compile in one go.
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, buildPolicySetInSlices, parseDocuments, type PolicySet } from '../../src/policyset/index.js';

function map(name: string, expression = `Object{metadata: Object.metadata{labels: {"${name}": "yes"}}}`): string {
  return `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["", "example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods", "widgets"]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: '${expression}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}}
`;
}

const KYVERNO = `---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-team}
spec:
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            team: '{{ request.object.metadata.name }}'
`;

const CRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

const TEXT = [map('a'), map('b'), map('broken', 'Object{metadata: nope('), KYVERNO, CRD, '---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {env: prod}}\n', '---\nkind: NoVersion\n', map('c')].join('');

/** What a set is made of, comparable with toEqual (compiled programs are not). */
function shape(set: PolicySet): object {
  return {
    counts: set.counts,
    problems: set.problems,
    mutating: set.mutatingPolicies.map((p) => [p.policy.name, p.bindings.map((b) => b.name)]),
    kyverno: set.kyvernoPolicies.map((p) => p.id),
    objects: set.objects.size,
    widget: set.schemas.lookup('example.com/v1', 'Widget') !== undefined,
  };
}

describe('a policy set built in slices', () => {
  it('is the set built at once, with a pause between documents and between policies compiled', async () => {
    const parsed = parseDocuments('set.yaml', TEXT);
    let pauses = 0;
    const sliced = await buildPolicySetInSlices(parsed, {}, async () => void pauses++, 0);
    expect(shape(sliced)).toEqual(shape(buildPolicySet(parsed)));
    expect(sliced.counts.mutatingAdmissionPolicies).toBe(3);
    expect(sliced.problems.some((p) => p.name === 'broken' && p.effect === 'ignored')).toBe(true);
    // 12 documents (two passes), 4 policies compiled, 1 Kyverno policy checked.
    expect(pauses).toBeGreaterThanOrEqual(12 + 4 + 1);
  });

  it('stops with its pause', async () => {
    const parsed = parseDocuments('set.yaml', TEXT);
    await expect(buildPolicySetInSlices(parsed, {}, () => Promise.reject(new Error('stopped')), 0)).rejects.toThrow('stopped');
  });
});
